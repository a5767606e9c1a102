// Writes src/agent/eval/tasks.json, the task set `toolbridge eval` ships with: tool-use tasks over the bundled
// time and math servers, made from templates with numbers from a fixed seed (the same file every run).
// Shapes after BFCL (simple, multiple, parallel, irrelevance; argument types) and MCP-Atlas (prompts that name
// no tool, distractor tools, answers judged by the facts the tools returned). Run: node scripts/eval-tasks.mjs
import { writeFileSync } from "node:fs";

let seed = 20261207;
function rand() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (list) => list[Math.floor(rand() * list.length)];
const dec = (lo, hi, places) => Number((lo + rand() * (hi - lo)).toFixed(places));
const clean = (n) => Number(n.toPrecision(12));

const OPS = {
  add: { args: (a, b) => ({ a, b }), value: (a, b) => a + b, say: [(a, b) => `What is ${a} plus ${b}?`, (a, b) => `Add ${a} and ${b}.`, (a, b) => `I spent ${a} and then ${b}; how much in total?`, (a, b) => `What do ${a} and ${b} sum to?`] },
  subtract: { args: (a, b) => ({ a, b }), value: (a, b) => a - b, say: [(a, b) => `What is ${a} minus ${b}?`, (a, b) => `Take ${b} away from ${a}.`, (a, b) => `I had ${a} and gave away ${b}. How many are left?`, (a, b) => `How much is ${b} less than ${a}?`] },
  multiply: { args: (a, b) => ({ a, b }), value: (a, b) => a * b, say: [(a, b) => `What is ${a} times ${b}?`, (a, b) => `Multiply ${a} by ${b}.`, (a, b) => `A crate holds ${b} items; how many items are in ${a} crates?`, (a, b) => `What is the product of ${a} and ${b}?`] },
  divide: { args: (a, b) => ({ a, b }), value: (a, b) => a / b, say: [(a, b) => `What is ${a} divided by ${b}?`, (a, b) => `Split ${a} evenly into ${b} parts: how big is each part?`, (a, b) => `How many times does ${b} go into ${a}?`, (a, b) => `Divide ${a} by ${b}.`] },
  power: { args: (a, b) => ({ base: a, exponent: b }), value: (a, b) => a ** b, say: [(a, b) => `What is ${a} to the power of ${b}?`, (a, b) => `Raise ${a} to the ${b}th power.`, (a, b) => `Compute ${a}^${b}.`, (a, b) => `What is ${a} multiplied by itself ${b} times (${a} to the ${b})?`] },
  square_root: { args: (a) => ({ number: a }), value: (a) => Math.sqrt(a), say: [(a) => `What is the square root of ${a}?`, (a) => `A square has an area of ${a}; how long is its side?`, (a) => `Find √${a}.`, (a) => `Which number squared gives ${a}?`] },
};

function operands(op) {
  switch (op) {
    case "add": return [int(1000, 99999), int(1000, 99999)];
    case "subtract": return [int(5000, 99999), int(100, 4999)];
    case "multiply": return [int(120, 9999), int(13, 999)];
    case "divide": { const b = int(7, 97); return [b * int(100, 9999), b]; }
    case "power": return [int(3, 19), int(5, 9)];
    case "square_root": { const r = int(31, 999); return [r * r]; }
  }
}

const tasks = [];
const counters = {};
function add(category, task) {
  counters[category] = (counters[category] ?? 0) + 1;
  tasks.push({ id: `${category}-${String(counters[category]).padStart(3, "0")}`, category, ...task });
}
// A task's accepted tools: those of its reference, and batch_calculate, which computes any of it as well.
function valueTask(category, tools, prompt, reference, values, options = {}) {
  const accept = options.accept ?? [...new Set([...reference.flat().map((call) => call.tool), "batch_calculate"])];
  add(category, { prompt, tools, expect: { kind: "value", values, accept, ...(options.partials ? { partials: options.partials } : {}) }, reference });
}
function single(op, a, b, sayIndex) {
  const args = OPS[op].args(a, b);
  const value = clean(OPS[op].value(a, b));
  const prompt = OPS[op].say[sayIndex % OPS[op].say.length](a, b);
  return { prompt, call: { tool: op, arguments: args }, value };
}

// single: one call of one math tool; only the math server is connected.
const ops = Object.keys(OPS);
for (let i = 0; i < 40; i++) {
  const op = ops[i % ops.length];
  const [a, b] = operands(op);
  const s = single(op, a, b, Math.floor(i / ops.length));
  valueTask("single", "math", s.prompt, [[s.call]], [s.value]);
}

// types: arguments whose type the model must get right (numbers written as words, negatives, decimals), and enums.
const WORDS = [[12, "twelve"], [15, "fifteen"], [40, "forty"], [75, "seventy-five"], [250, "two hundred and fifty"], [1000, "one thousand"], [3000, "three thousand"], [90, "ninety"]];
for (let i = 0; i < 24; i++) {
  const kind = i % 4;
  if (kind === 0) {
    const [n, w] = pick(WORDS);
    const b = int(101, 999);
    valueTask("types", "math", `Multiply ${w} by ${b}.`, [[{ tool: "multiply", arguments: { a: n, b } }]], [n * b]);
  } else if (kind === 1) {
    const a = -dec(10, 500, 2);
    const b = dec(2, 40, 1);
    valueTask("types", "math", `What is ${a} times ${b}?`, [[{ tool: "multiply", arguments: { a, b } }]], [clean(a * b)]);
  } else if (kind === 2) {
    const a = dec(1, 99, 3);
    const b = dec(1, 99, 3);
    valueTask("types", "math", `Add ${a} and ${b}, exactly.`, [[{ tool: "add", arguments: { a, b } }]], [clean(a + b)]);
  } else {
    const base = 2 + Math.floor(i / 4);
    const exponent = -(1 + (i % 3));
    valueTask("types", "math", `What is ${base} raised to the power of ${exponent}?`, [[{ tool: "power", arguments: { base, exponent } }]], [clean(base ** exponent)]);
  }
}
const ZONES = [["Tokyo", "Asia/Tokyo"], ["New York", "America/New_York"], ["London", "Europe/London"], ["Berlin", "Europe/Berlin"], ["Sydney", "Australia/Sydney"], ["Kolkata", "Asia/Kolkata"], ["Los Angeles", "America/Los_Angeles"], ["Taipei", "Asia/Taipei"], ["São Paulo", "America/Sao_Paulo"], ["Johannesburg", "Africa/Johannesburg"]];
const STAMPS = ["What is the current Unix timestamp in milliseconds?", "Give me the time right now as milliseconds since the epoch.", "How many milliseconds have passed since 1 January 1970 UTC, right now?", "I need a millisecond timestamp of this moment.", "What's the epoch time now, in ms?", "Current time as a Unix timestamp (milliseconds), please."];
for (let i = 0; i < 6; i++) {
  add("types", { prompt: STAMPS[i], tools: i % 2 ? "all" : "time", expect: { kind: "date", format: "timestamp" }, reference: [[{ tool: "get-date", arguments: { format: "timestamp" } }]] });
}

// distractor: both servers' tools offered; near neighbours (add/subtract, power/multiply, square_root/power) and argument order matter.
for (let i = 0; i < 30; i++) {
  const op = ops[(i * 5 + 1) % ops.length];
  const [a, b] = operands(op);
  const s = single(op, a, b, i + 1);
  valueTask("distractor", "all", s.prompt, [[s.call]], [s.value]);
}

// parallel: two independent results in one question (one reply may make both calls).
for (let i = 0; i < 20; i++) {
  const op1 = ops[i % ops.length];
  const op2 = ops[(i + 2) % ops.length];
  const [a1, b1] = operands(op1);
  const [a2, b2] = operands(op2);
  const s1 = single(op1, a1, b1, i);
  const s2 = single(op2, a2, b2, i + 1);
  valueTask("parallel", i % 2 ? "all" : "math", `Two questions. ${s1.prompt} And: ${s2.prompt}`, [[s1.call, s2.call]], [s1.value, s2.value]);
}

// multi: a chain where each step needs the result before it.
for (let i = 0; i < 40; i++) {
  const shape = i % 4;
  if (shape === 0) {
    const a = int(100, 999), b = int(100, 999), c = int(3, 29);
    const s = a + b;
    valueTask("multi", "math", pick([`Add ${a} and ${b}, then multiply the sum by ${c}.`, `What is (${a} + ${b}) × ${c}?`, `Two boxes hold ${a} and ${b} screws. I buy ${c} sets of both boxes. How many screws is that?`]), [[{ tool: "add", arguments: { a, b } }], [{ tool: "multiply", arguments: { a: s, b: c } }]], [s * c], { accept: ["add", "multiply", "batch_calculate"], partials: [s] });
  } else if (shape === 1) {
    const c = int(3, 19), q = int(50, 500), b = int(10, 999);
    const a = q * c + b;
    valueTask("multi", "math", pick([`Subtract ${b} from ${a}, then divide the difference by ${c}.`, `What is (${a} − ${b}) ÷ ${c}?`, `${a} apples, ${b} of them rotten; the good ones are shared by ${c} people. How many does each get?`]), [[{ tool: "subtract", arguments: { a, b } }], [{ tool: "divide", arguments: { a: a - b, b: c } }]], [q], { accept: ["subtract", "divide", "batch_calculate"], partials: [a - b] });
  } else if (shape === 2) {
    const r = int(12, 99), b = int(100, 9999);
    valueTask("multi", "all", pick([`Take the square root of ${r * r} and add ${b} to it.`, `What is √${r * r} + ${b}?`]), [[{ tool: "square_root", arguments: { number: r * r } }], [{ tool: "add", arguments: { a: r, b } }]], [r + b], { accept: ["square_root", "add", "batch_calculate", "power"], partials: [r] });
  } else {
    const base = int(2, 9), exponent = int(4, 8), c = int(100, 999), d = int(2, 9);
    const p = base ** exponent;
    valueTask("multi", "math", pick([`Raise ${base} to the ${exponent}th power, subtract ${c}, then multiply by ${d}.`, `What is (${base}^${exponent} − ${c}) × ${d}?`]), [[{ tool: "power", arguments: { base, exponent } }], [{ tool: "subtract", arguments: { a: p, b: c } }], [{ tool: "multiply", arguments: { a: p - c, b: d } }]], [(p - c) * d], { accept: ["power", "subtract", "multiply", "batch_calculate"], partials: [p, p - c] });
  }
}

// time: the current date or time in a place, through get-date with the right zone and format.
for (let i = 0; i < 20; i++) {
  const [place, zone] = ZONES[i % ZONES.length];
  const asDate = i % 2 === 0;
  const wording = Math.floor(i / ZONES.length);
  const prompt = asDate ? [`What is today's date in ${place}?`, `Which day is it now in ${place}?`][wording] : [`What time is it in ${place} right now?`, `Tell me the current local time in ${place}.`][wording];
  const format = asDate ? "date-only" : "time-only";
  add("time", { prompt, tools: i % 3 ? "time" : "all", expect: { kind: "date", timezone: zone, format }, reference: [[{ tool: "get-date", arguments: { timezone: zone, format } }]] });
}

// no-tool: the tools are offered but none helps; any call is a false call.
const FACTS = [
  ["What is the capital of Japan?", "Tokyo"], ["Which planet is known as the Red Planet?", "Mars"], ["What is the chemical symbol for gold?", "Au"],
  ["Who wrote Romeo and Juliet?", "Shakespeare"], ["What colour do you get by mixing blue and yellow?", "green"], ["What is the plural of 'mouse'?", "mice"],
  ["What language is mainly spoken in Brazil?", "Portuguese"], ["What is the largest ocean on Earth?", "Pacific"], ["On which continent is Kenya?", "Africa"],
  ["Which gas do plants take from the air for photosynthesis?", "carbon dioxide|CO2|CO₂"], ["Translate 'thank you' into French.", "merci"], ["What is the capital of Canada?", "Ottawa"],
  ["What is the freezing point of water at sea level, in degrees Celsius?", "0"], ["Which animal is known as the king of the jungle?", "lion"], ["What is the opposite of 'hot'?", "cold"],
];
for (let i = 0; i < 30; i++) {
  const [question, answer] = FACTS[i % FACTS.length];
  const prompt = i < FACTS.length ? question : `${pick(["Quick one: ", "Without looking anything up: ", "Just curious. "])}${question}`;
  add("no-tool", { prompt, tools: "all", expect: { kind: "none", answer: [answer] } });
}

// long-list: the bundled tools among 60 decoys, with tool search on: the right tool must be found, then called.
for (let i = 0; i < 30; i++) {
  if (i % 5 === 4) {
    const [place, zone] = ZONES[Math.floor(i / 5)];
    add("long-list", { prompt: `I need today's date in ${place}, please.`, tools: "all+decoys", expect: { kind: "date", timezone: zone, format: "date-only" }, reference: [[{ tool: "get-date", arguments: { timezone: zone, format: "date-only" } }]] });
    continue;
  }
  const op = ops[(i * 7 + 3) % ops.length];
  const [a, b] = operands(op);
  const s = single(op, a, b, i + 2);
  valueTask("long-list", "all+decoys", s.prompt, [[s.call]], [s.value]);
}

// Decoys: plausible tools of other servers (none of them computes or tells the time), after MCP-Atlas's distractors.
const DECOY_TOPICS = [
  ["convert_currency", "Convert an amount of money from one currency to another at today's rate.", { amount: "number", from: "string", to: "string" }],
  ["get_weather", "Current weather and a 3-day forecast for a city.", { city: "string" }],
  ["send_email", "Send an email to one recipient.", { to: "string", subject: "string", body: "string" }],
  ["create_calendar_event", "Create an event in the user's calendar.", { title: "string", start: "string", end: "string" }],
  ["stock_quote", "The latest price of a stock by ticker symbol.", { symbol: "string" }],
  ["translate_text", "Translate text into another language.", { text: "string", target_language: "string" }],
  ["search_web", "Search the web and return the top results.", { query: "string" }],
  ["read_file", "Read a text file from the user's workspace.", { path: "string" }],
  ["write_file", "Write a text file in the user's workspace.", { path: "string", content: "string" }],
  ["list_directory", "List the entries of a folder in the workspace.", { path: "string" }],
  ["geocode_address", "Latitude and longitude of a street address.", { address: "string" }],
  ["route_distance", "Driving distance and time between two places.", { origin: "string", destination: "string" }],
  ["create_issue", "Open an issue in a code repository.", { repository: "string", title: "string", body: "string" }],
  ["list_pull_requests", "List the open pull requests of a repository.", { repository: "string" }],
  ["query_database", "Run a read-only SQL query on the analytics database.", { sql: "string" }],
  ["post_message", "Post a message to a chat channel.", { channel: "string", text: "string" }],
  ["lookup_contact", "Find a person in the address book by name.", { name: "string" }],
  ["book_flight", "Book a flight for the user.", { from: "string", to: "string", date: "string" }],
  ["hotel_search", "Find hotels in a city for given nights.", { city: "string", nights: "integer" }],
  ["summarize_url", "Fetch a web page and summarize it.", { url: "string" }],
  ["unit_convert_length", "Convert a length between metric and imperial units.", { value: "number", from_unit: "string", to_unit: "string" }],
  ["nutrition_facts", "Calories and nutrients of a food.", { food: "string" }],
  ["define_word", "The dictionary definition of an English word.", { word: "string" }],
  ["news_headlines", "Today's top news headlines on a topic.", { topic: "string" }],
  ["generate_image", "Generate an image from a description.", { prompt: "string" }],
  ["transcribe_audio", "Transcribe an audio file to text.", { path: "string" }],
  ["create_invoice", "Create an invoice for a customer.", { customer: "string", amount: "number" }],
  ["track_package", "The delivery status of a parcel.", { tracking_number: "string" }],
  ["set_reminder", "Remind the user of something later.", { text: "string", minutes: "integer" }],
  ["play_music", "Play a song or playlist.", { query: "string" }],
];
const decoys = [];
for (const [name, description, props] of DECOY_TOPICS) {
  for (const variant of ["", "_v2"]) {
    decoys.push({
      name: `${name}${variant}`,
      description: variant ? `${description} (newer version)` : description,
      inputSchema: { type: "object", properties: Object.fromEntries(Object.entries(props).map(([k, type]) => [k, { type }])), required: Object.keys(props) },
    });
  }
}

// Prompts are unique: a task is found by its prompt (the tests' scripted model does so).
const prompts = new Set(tasks.map((task) => task.prompt));
if (prompts.size !== tasks.length) throw new Error(`two tasks have the same prompt: ${tasks.map((t) => t.prompt).filter((p, i, all) => all.indexOf(p) !== i).join("; ")}`);
const file = { version: 1, decoys, tasks };
writeFileSync(new URL("../src/agent/eval/tasks.json", import.meta.url), `${JSON.stringify(file, null, 1)}\n`);
console.log(`${tasks.length} tasks, ${decoys.length} decoys: ${Object.entries(counters).map(([k, v]) => `${k} ${v}`).join(", ")}`);
