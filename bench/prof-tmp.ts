import OpenAI from "openai";
import { MODEL, startHere, startUpstream } from "./gateway.js";
const upstream = await startUpstream();
const gw = await startHere(upstream.url);
const chat = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "none", maxRetries: 0 });
const direct = new OpenAI({ baseURL: upstream.url, apiKey: "none", maxRetries: 0 });
async function once(c: OpenAI) {
  const s = await c.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "What is the date?" }], stream: true, stream_options: { include_usage: true } });
  let t = ""; for await (const ch of s) t += ch.choices[0]?.delta.content ?? ""; return t;
}
for (let i = 0; i < 100; i++) { await once(chat); await once(direct); }
let cg = 0, cd = 0;
const N = Number(process.argv[2] ?? 400);
for (let i = 0; i < N; i++) {
  let u = process.cpuUsage(); await once(chat); let d = process.cpuUsage(u); cg += (d.user + d.system) / 1000;
  u = process.cpuUsage(); await once(direct); d = process.cpuUsage(u); cd += (d.user + d.system) / 1000;
}
console.log(`cpu per turn: gateway path ${(cg / N).toFixed(2)} ms, direct ${(cd / N).toFixed(2)} ms, added ${((cg - cd) / N).toFixed(2)} ms`);
await gw.stop(); await upstream.close(); process.exit(0);
