/**
 * Resources attached to a message with `@`: the page keeps what the person typed and each
 * resource apart (the bubble shows a chip per resource), and the model is sent them as one text.
 * A message carries at most MAX_ATTACHED_BYTES of resources: a longer one is cut, and says so.
 */

export const MAX_ATTACHED_BYTES = 100_000;

export interface Attachment {
  uri: string;
  name: string;
  /** What is sent (cut to the bound, when it was over). */
  text: string;
  /** The resource's whole size in bytes, when it was cut. */
  cutFrom?: number;
}

const encoder = new TextEncoder();

export function byteSize(text: string): number {
  return encoder.encode(text).length;
}

export function sizeText(bytes: number): string {
  return bytes < 1000 ? `${bytes} B` : `${(bytes / 1000).toFixed(1)} kB`;
}

/**
 * A resource's text as attached next to `already`: whole, cut to what the message has left, or
 * refused; with the one line to show the person when it was not attached whole.
 */
export function attach(resource: { uri: string; name: string }, text: string, already: readonly Attachment[]): { attachment?: Attachment; notice?: string } {
  const used = already.filter((a) => a.uri !== resource.uri).reduce((sum, a) => sum + byteSize(a.text), 0);
  const left = MAX_ATTACHED_BYTES - used;
  const size = byteSize(text);
  const where = `@${resource.name} (${resource.uri})`;
  if (size <= left) return { attachment: { ...resource, text } };
  if (left <= 0) return { notice: `${where} was not attached: this message already carries ${sizeText(used)} of resources, the most one message takes (${sizeText(MAX_ATTACHED_BYTES)}).` };
  // Cut on a character, not inside one: the decoder drops a half character at the end.
  const cut = new TextDecoder().decode(encoder.encode(text).slice(0, left)).replace(/\uFFFD$/, "");
  return {
    attachment: { ...resource, text: cut, cutFrom: size },
    notice: `${where} is ${sizeText(size)}: only its first ${sizeText(byteSize(cut))} were attached (a message carries at most ${sizeText(MAX_ATTACHED_BYTES)} of resources).`,
  };
}

/** The message the model is sent: what the person typed, then each resource's text. */
export function messageWith(input: string, attachments: readonly Attachment[] = []): string {
  return [
    input.trim(),
    ...attachments.map((a) => `Resource ${a.name} (${a.uri})${a.cutFrom !== undefined ? `, its first ${sizeText(byteSize(a.text))} of ${sizeText(a.cutFrom)}` : ""}:\n\`\`\`\n${a.text}\n\`\`\``),
  ]
    .filter(Boolean)
    .join("\n\n");
}
