import type { OpenableUrl } from "../../mcp/openable-url.js";

/**
 * A page someone asks the person to open, shown exactly as it would open (openableUrl's `href`:
 * a look-alike international host in punycode) with its host named; or why it will not open.
 */
export function LinkShown({ url }: { url: OpenableUrl }) {
  return url.ok ? (
    <>
      <pre class="link-url">{url.href}</pre>
      <p class="approval-about">
        It opens in a new tab at <strong class="url-host">{new URL(url.href).host}</strong>.
      </p>
    </>
  ) : (
    <p class="field-error">Not opened: {url.reason}.</p>
  );
}
