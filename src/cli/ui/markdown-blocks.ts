/**
 * A streamed answer is drawn in two parts: the blocks that are finished (moved to the
 * static region, drawn once) and the block still being written (redrawn as it grows). A
 * block is finished at a blank line outside a code fence, so that the redrawn part stays
 * small however long the answer gets.
 */
export function splitFinishedMarkdown(text: string): { finished: string; rest: string } {
  let inFence = false;
  let cut = 0;
  let lineStart = 0;
  let previousBlank = false;
  while (lineStart < text.length) {
    const newline = text.indexOf("\n", lineStart);
    if (newline === -1) break;
    const line = text.slice(lineStart, newline);
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const blank = line.trim() === "";
    if (blank && !inFence && !previousBlank && lineStart > 0) cut = newline + 1;
    previousBlank = blank;
    lineStart = newline + 1;
  }
  if (cut === 0) return { finished: "", rest: text };
  // The blank line stays with the finished block, so paragraphs keep their spacing on screen.
  return { finished: text.slice(0, cut - 1), rest: text.slice(cut) };
}
