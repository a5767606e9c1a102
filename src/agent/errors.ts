/** A transcript that cannot be read; `message` names the file and line. */
export class TranscriptError extends Error {
  override readonly name = "TranscriptError";
}
