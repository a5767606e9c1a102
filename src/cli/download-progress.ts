/** How often the bar is drawn again at most. */
const FRAME_MS = 100;

const MIB = 1024 * 1024;

/**
 * A progress line on stderr for a model file being downloaded, drawn on a terminal only
 * (undefined elsewhere: logs and pipes get no bar), and cleared when the download ends.
 */
export function downloadProgress(stream: NodeJS.WriteStream = process.stderr): ((received: number, total: number) => void) | undefined {
  if (!stream.isTTY) return undefined;
  let drawn = 0;
  return (received, total) => {
    const now = performance.now();
    const done = received >= total;
    if (!done && now - drawn < FRAME_MS) return;
    drawn = now;
    const share = total > 0 ? received / total : 0;
    stream.write(`\r\x1b[Kdownloading the model ${progressBar(share)} ${(received / MIB).toFixed(1)} / ${(total / MIB).toFixed(1)} MiB ${Math.floor(share * 100)}%`);
    if (done) stream.write("\r\x1b[K");
  };
}

/** A bar of `width` cells, filled to `share` (0 to 1). */
export function progressBar(share: number, width = 24): string {
  const filled = Math.round(Math.min(1, Math.max(0, share)) * width);
  return `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
}
