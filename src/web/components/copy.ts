/** Copies to the clipboard; where the browser has no clipboard API (an insecure origin), a hidden selection does it. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.className = "visually-hidden";
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}
