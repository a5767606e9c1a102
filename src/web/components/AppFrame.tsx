import { useEffect, useRef, useState } from "preact/hooks";
import { callAppTool, openAppFrame, type ApprovalQuestion, type CallToolResult, type ToolView } from "../api.js";
import { Approval } from "./Approval.js";

/**
 * A tool's MCP App (the `io.modelcontextprotocol/ui` extension) beside its result: the `ui://`
 * document in a frame sandboxed to scripts alone (never same-origin: it cannot read this page,
 * its storage or its key), under the CSP its resource declares (set by the gateway), and the
 * extension's JSON-RPC over postMessage: ui/initialize, the tool's input and result, size
 * changes, the app's own tool calls (asked about as the policy says) and links (shown, then opened only on a click).
 */

const PROTOCOL_VERSION = "2026-01-26";
const MAX_HEIGHT = 800;
const MIN_HEIGHT = 60;

type Rpc = { jsonrpc: "2.0"; id?: number | string; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };

interface Pending {
  kind: "tool";
  question: Omit<ApprovalQuestion, "id" | "callId">;
  resolve: (approved: boolean) => void;
}

export function AppFrame({ tool, uri, input, result }: { tool: ToolView; uri: string; input: unknown; result: CallToolResult }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [src, setSrc] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [height, setHeight] = useState(240);
  const [asking, setAsking] = useState<Pending>();
  const [link, setLink] = useState<{ url: string; resolve: (opened: boolean) => void }>();

  useEffect(() => {
    let live = true;
    openAppFrame(uri, tool.server).then(
      (opened) => live && setSrc(opened.path),
      (error: unknown) => live && setFailure(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      live = false;
    };
  }, [uri, tool.server]);

  useEffect(() => {
    if (!src) return;
    const post = (message: Omit<Rpc, "jsonrpc">) => frame.current?.contentWindow?.postMessage({ jsonrpc: "2.0", ...message }, "*");
    const ask = (question: Pending["question"]) => new Promise<boolean>((resolve) => setAsking({ kind: "tool", question, resolve }));
    const handle = async (message: Rpc): Promise<unknown> => {
      switch (message.method) {
        case "ui/initialize":
          return {
            protocolVersion: PROTOCOL_VERSION,
            hostInfo: { name: "toolbridge", version: "1" },
            hostCapabilities: { serverTools: {}, openLinks: {}, logging: {} },
            hostContext: {
              theme: document.documentElement.dataset.theme === "dark" || (!document.documentElement.dataset.theme && matchMedia("(prefers-color-scheme: dark)").matches) ? "dark" : "light",
              displayMode: "inline",
              availableDisplayModes: ["inline"],
              // The whole tool as MCP defines it: the extension's App SDK refuses a tool without its input schema.
              toolInfo: { tool: { name: tool.name, ...(tool.title ? { title: tool.title } : {}), ...(tool.description ? { description: tool.description } : {}), inputSchema: tool.inputSchema ?? { type: "object" } } },
              containerDimensions: { maxHeight: MAX_HEIGHT },
            },
          };
        case "tools/call": {
          const name = String(message.params?.name ?? "");
          const args = (message.params?.arguments ?? {}) as Record<string, unknown>;
          let answer = await callAppTool(tool.name, name, args);
          if ("approval" in answer) {
            if (!(await ask(answer.approval))) return { content: [{ type: "text", text: "The person denied this tool call." }], isError: true };
            answer = await callAppTool(tool.name, name, args, { fingerprint: answer.approval.fingerprint });
          }
          if ("approval" in answer) throw new Error("not approved");
          return answer.result;
        }
        case "ui/open-link": {
          const url = String(message.params?.url ?? "");
          if (!/^https?:\/\//i.test(url)) throw new Error("only http and https links open");
          const opened = await new Promise<boolean>((resolve) => setLink({ url, resolve }));
          return opened ? {} : { isError: true };
        }
        case "ping":
          return {};
        default:
          throw new Error(`not supported: ${message.method}`);
      }
    };
    const onMessage = (event: MessageEvent) => {
      // Only this frame's window; its origin is opaque ("null"), so the window is what identifies it.
      if (event.source !== frame.current?.contentWindow) return;
      const message = event.data as Rpc;
      if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0" || typeof message.method !== "string") return;
      if (message.method === "ui/notifications/initialized") {
        post({ method: "ui/notifications/tool-input", params: { arguments: typeof input === "object" && input !== null ? input : {} } });
        post({ method: "ui/notifications/tool-result", params: result as unknown as Record<string, unknown> });
        return;
      }
      if (message.method === "ui/notifications/size-changed") {
        const wanted = Number(message.params?.height);
        if (Number.isFinite(wanted)) setHeight(Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, Math.ceil(wanted))));
        return;
      }
      if (message.id === undefined) return;
      handle(message).then(
        (answer) => post({ id: message.id as number, result: answer }),
        (error: unknown) => post({ id: message.id as number, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }),
      );
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [src, tool, input, result]);

  if (failure) return <p class="app-failure">The app {uri} could not be shown: {failure}</p>;
  return (
    <div class="app-frame">
      {src && (
        <iframe ref={frame} src={src} title={`${tool.title ?? tool.name} app`} sandbox="allow-scripts allow-forms" referrerpolicy="no-referrer" height={height} />
      )}
      {asking && (
        <Approval
          question={asking.question}
          session={false}
          onAnswer={(answer) => {
            asking.resolve(answer.decision !== "deny");
            setAsking(undefined);
          }}
        />
      )}
      {link && (
        <section class="approval" role="group" aria-label="Open a link">
          <p class="approval-title">The app asks to open this address in a new tab:</p>
          <pre class="link-url">{link.url}</pre>
          <div class="approval-buttons">
            <button
              type="button"
              class="btn primary"
              onClick={() => {
                window.open(link.url, "_blank", "noopener,noreferrer");
                link.resolve(true);
                setLink(undefined);
              }}
            >
              Open
            </button>
            <button
              type="button"
              class="btn"
              onClick={() => {
                link.resolve(false);
                setLink(undefined);
              }}
            >
              Don't open
            </button>
          </div>
        </section>
      )}
    </div>
  );
}
