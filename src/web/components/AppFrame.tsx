import { useEffect, useRef, useState } from "preact/hooks";
import { openableUrl, type OpenableUrl } from "../../mcp/openable-url.js";
import { callAppTool, closeAppPage, openAppFrame, type ApprovalDecision, type ApprovalQuestion, type CallToolResult, type ToolView } from "../api.js";
import { pageTheme, watchTheme } from "../theme.js";
import { Approval } from "./Approval.js";
import { LinkShown } from "./LinkShown.js";

/**
 * A tool's MCP App (the `io.modelcontextprotocol/ui` extension) beside its result: the `ui://`
 * document in a frame sandboxed to scripts alone (never same-origin: it cannot read this page,
 * its storage or its key), under the CSP its resource declares (set by the gateway), and the
 * extension's JSON-RPC over postMessage: ui/initialize, the tool's input and result, size
 * changes, the theme as it changes, the app's own tool calls (asked about as the policy says;
 * a denial reaches the app with the person's reason) and links (checked as a server's are,
 * shown exactly as they open, then opened only on a click).
 */

const PROTOCOL_VERSION = "2026-01-26";
/** How long an app is given to answer ui/resource-teardown before its frame goes anyway. */
const TEARDOWN_WAIT_MS = 1000;
const MAX_HEIGHT = 800;
const MIN_HEIGHT = 60;

type Rpc = { jsonrpc: "2.0"; id?: number | string; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };

interface Pending {
  kind: "tool";
  question: Omit<ApprovalQuestion, "callId">;
  resolve: (answer: ApprovalDecision) => void;
}

/** The apps shown, by their frame: each is asked to tear down (and answers, or its time runs out) before the frame goes. */
const shown = new Map<Element, () => Promise<void>>();

/** Sends ui/resource-teardown to every app inside `leaving` (elements about to be removed) and waits for their answers. */
export async function tearDownApps(leaving: readonly Element[]): Promise<void> {
  await Promise.all([...shown].filter(([element]) => leaving.some((gone) => gone.contains(element))).map(([, tearDown]) => tearDown()));
}

/**
 * The page is going (its tab closed, reloaded, navigated away; `pagehide`): every app is told
 * to tear down, with no wait (the page cannot wait), and the gateway frees what the page's apps hold there.
 */
export function whenPageGoes(): () => void {
  const onPageHide = () => {
    for (const tearDown of shown.values()) void tearDown();
    closeAppPage();
  };
  window.addEventListener("pagehide", onPageHide);
  return () => window.removeEventListener("pagehide", onPageHide);
}

export function AppFrame({ tool, uri, input, result }: { tool: ToolView; uri: string; input: unknown; result: CallToolResult }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [src, setSrc] = useState<string>();
  const [refused, setRefused] = useState<string[]>([]);
  const [failure, setFailure] = useState<string>();
  const [height, setHeight] = useState(240);
  /** Whether the app said it is initialized (the bridge's effect may run again later, for the same app). */
  const ready = useRef(false);
  // The app's questions, one shown at a time in the order they came: a second call never replaces the one on screen.
  const [questions, setQuestions] = useState<Pending[]>([]);
  const asking = questions[0];
  const [link, setLink] = useState<{ url: OpenableUrl; resolve: (opened: boolean) => void }>();

  useEffect(() => {
    let live = true;
    openAppFrame(uri, tool.server).then(
      (opened) => {
        if (!live) return;
        setSrc(opened.path);
        setRefused(opened.refused);
      },
      (error: unknown) => live && setFailure(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      live = false;
    };
  }, [uri, tool.server]);

  useEffect(() => {
    if (!src) return;
    const post = (message: Omit<Rpc, "jsonrpc">) => frame.current?.contentWindow?.postMessage({ jsonrpc: "2.0", ...message }, "*");
    const ask = (question: Pending["question"]) => new Promise<ApprovalDecision>((resolve) => setQuestions((waiting) => [...waiting, { kind: "tool", question, resolve }]));
    // The frame's id, which the gateway knows this app by: its calls reach its own server only.
    const frameId = src.split("/").at(-1) ?? "";
    // The theme the app was last told; told again when the person (or the system) switches it.
    let told: string | undefined = ready.current ? pageTheme() : undefined;
    const stopWatching = watchTheme(() => {
      const theme = pageTheme();
      if (told === undefined || theme === told) return;
      told = theme;
      post({ method: "ui/notifications/host-context-changed", params: { theme } });
    });
    const handle = async (message: Rpc): Promise<unknown> => {
      switch (message.method) {
        case "ui/initialize":
          return {
            protocolVersion: PROTOCOL_VERSION,
            hostInfo: { name: "toolbridge", version: "1" },
            hostCapabilities: { serverTools: {}, openLinks: {}, logging: {} },
            hostContext: {
              theme: (told = pageTheme()),
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
          let answer = await callAppTool(frameId, name, args);
          if ("approval" in answer) {
            const question = answer.approval;
            const decision = await ask(question);
            if (decision.decision === "deny") return { content: [{ type: "text", text: `The person denied this tool call${decision.reason ? `: ${decision.reason}` : "."}` }], isError: true };
            answer = await callAppTool(frameId, name, args, { id: question.id, fingerprint: question.fingerprint });
          }
          if ("approval" in answer) throw new Error("not approved");
          return answer.result;
        }
        case "ui/open-link": {
          const url = openableUrl(String(message.params?.url ?? ""));
          const opened = await new Promise<boolean>((resolve) => setLink({ url, resolve }));
          return opened ? {} : { isError: true };
        }
        case "ping":
          return {};
        default:
          throw new Error(`not supported: ${message.method}`);
      }
    };
    // The page's own requests to the app (ui/resource-teardown), waiting for its answer.
    const answers = new Map<string, () => void>();
    let asked = 0;
    const tearDown = () =>
      new Promise<void>((resolve) => {
        const id = `teardown-${++asked}`;
        const done = () => {
          clearTimeout(timer);
          answers.delete(id);
          resolve();
        };
        const timer = setTimeout(done, TEARDOWN_WAIT_MS);
        answers.set(id, done);
        post({ id, method: "ui/resource-teardown", params: {} });
      });
    const element = frame.current;
    if (ready.current && element) shown.set(element, tearDown);
    const onMessage = (event: MessageEvent) => {
      // Only this frame's window; its origin is opaque ("null"), so the window is what identifies it.
      if (event.source !== frame.current?.contentWindow) return;
      const message = event.data as Rpc;
      if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0") return;
      if (message.method === undefined && typeof message.id === "string") return answers.get(message.id)?.();
      if (typeof message.method !== "string") return;
      if (message.method === "ui/notifications/initialized") {
        ready.current = true;
        if (element) shown.set(element, tearDown);
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
    return () => {
      window.removeEventListener("message", onMessage);
      stopWatching();
      if (element) shown.delete(element);
    };
  }, [src, tool, input, result]);

  if (failure) return <p class="app-failure">The app {uri} could not be shown: {failure}</p>;
  return (
    <div class="app-frame">
      {src && (
        <iframe ref={frame} src={src} title={`${tool.title ?? tool.name} app`} sandbox="allow-scripts allow-forms" referrerpolicy="no-referrer" height={height} />
      )}
      {refused.map((line) => (
        <p class="app-failure" key={line}>
          Left out of the app's content security policy: {line}
        </p>
      ))}
      {asking && (
        <Approval
          key={asking.question.id}
          question={asking.question}
          session={false}
          onAnswer={(answer) => {
            asking.resolve(answer);
            setQuestions((waiting) => waiting.filter((pending) => pending !== asking));
          }}
        />
      )}
      {link && (
        <section class="approval" role="group" aria-label="Open a link">
          <p class="approval-title">The app asks to open a page:</p>
          <LinkShown url={link.url} />
          <div class="approval-buttons">
            {link.url.ok && (
              <button
                type="button"
                class="btn primary"
                onClick={() => {
                  if (link.url.ok) window.open(link.url.href, "_blank", "noopener,noreferrer");
                  link.resolve(true);
                  setLink(undefined);
                }}
              >
                Open
              </button>
            )}
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
