/** One call in every format the parser reads, at any size: shared by the linearity test and the bench. */

/** A `size`-character stream in each family's call format: a sentence, then one call with a long string argument. */
export const FAMILY_STREAMS: Record<string, (body: string) => string> = {
  "Hermes/Qwen <tool_call>": (b) => `Writing.\n<tool_call>\n{"name": "write_file", "arguments": {"content": "${b}"}}\n</tool_call>`,
  "Llama 3 JSON": (b) => `{"name": "write_file", "parameters": {"content": "${b}"}}`,
  "Llama 3.2/4 pythonic": (b) => `<|python_start|>[write_file(content="${b}")]<|python_end|>`,
  "Mistral [TOOL_CALLS]name[ARGS]": (b) => `Sure.[TOOL_CALLS]write_file[ARGS]{"content": "${b}"}`,
  "DeepSeek V3": (b) =>
    `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n\`\`\`json\n{"content": "${b}"}\n\`\`\`<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
  "Kimi K2": (b) =>
    `Ok. <|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>{"content": "${b}"}<|tool_call_end|><|tool_calls_section_end|>`,
  "GLM-4.5 arg_key/arg_value": (b) => `<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>${b}</arg_value>\n</tool_call>`,
  "gpt-oss Harmony": (b) =>
    `<|channel|>analysis<|message|>Need to write.<|end|><|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{"content": "${b}"}<|call|>`,
  "Granite <|tool_call|>": (b) => `<|tool_call|>[{"name": "write_file", "arguments": {"content": "${b}"}}]`,
  "FireFunction functools": (b) => ` functools[{"name": "write_file", "arguments": {"content": "${b}"}}]`,
  "Command R action": (b) => `<|START_ACTION|>[{"tool_name": "write_file", "parameters": {"content": "${b}"}}]<|END_ACTION|>`,
  "Cherry Studio <tool_use>": (b) => `<tool_use>\n  <name>write_file</name>\n  <arguments>{"content": "${b}"}</arguments>\n</tool_use>`,
  "Qwen3-Coder <function=...> XML": (b) =>
    `<tool_call>\n<function=write_file>\n<parameter=content>\n${b}\n</parameter>\n</function>\n</tool_call>`,
  "Gemma 4 <|tool_call>call:": (b) => `Writing.<|tool_call>call:write_file{content:<|"|>${b}<|"|>,mode:420}<tool_call|>`,
  "FunctionGemma <start_function_call>": (b) => `<start_function_call>call:write_file{content:<escape>${b}<escape>}<end_function_call>`,
  "DeepSeek V3.2 DSML": (b) =>
    `<｜DSML｜function_calls>\n<｜DSML｜invoke name="write_file">\n<｜DSML｜parameter name="content" string="true">${b}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>`,
  "DeepSeek V4 DSML": (b) =>
    `<｜DSML｜tool_calls>\n<｜DSML｜invoke name="write_file">\n<｜DSML｜parameter name="content" string="true">${b}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>`,
  "DeepSeek V4.1 DSML": (b) =>
    `<｜DSML｜ calls>\n<｜DSML｜ invoke name="write_file">\n<｜DSML｜ parameter name="content" string="true">${b}</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>`,
  "DeepSeek V4 DSML, ASCII bars": (b) =>
    `<|DSML|tool_calls>\n<|DSML|invoke name="write_file">\n<|DSML|parameter name="content" string="true">${b}</|DSML|parameter>\n</|DSML|invoke>\n</|DSML|tool_calls>`,
  "Kimi K3 XTML": (b) =>
    `<|open|>think<|sep|>Write it.<|close|>think<|sep|><|open|>response<|sep|>Writing.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="write_file" index="1"<|sep|><|open|>argument key="content" type="string"<|sep|>${b}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`,
  "MiniMax M3 ]<]minimax[>[<tool_call>": (b) =>
    `]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="write_file">]<]minimax[>[<content>${b}]<]minimax[>[</content>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>`,
  "MiniMax M2 <minimax:tool_call>": (b) =>
    `<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="content">${b}</parameter>\n</invoke>\n</minimax:tool_call>`,
  "Seed-OSS <seed:tool_call>": (b) =>
    `<seed:think>Write it.</seed:think><seed:tool_call>\n<function=write_file>\n<parameter=content>${b}</parameter>\n</function>\n</seed:tool_call>`,
  "step3 <steptml:invoke>": (b) =>
    `<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="write_file">\n<steptml:parameter name="content">${b}</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>`,
  "Hunyuan <tool_calls>": (b) => `<tool_calls>[{"name": "write_file", "arguments": {"content": "${b}"}}]</tool_calls>`,
  "LFM2 <|tool_call_start|>": (b) => `<|tool_call_start|>[write_file(content="${b}")]<|tool_call_end|>`,
  // LFM2 often writes the call again after its end token, capped with a second one: one call still.
  "LFM2 with its echo": (b) =>
    `<|tool_call_start|>[write_file(content="${b}")]<|tool_call_end|>[write_file(content="${b}")]<|tool_call_end|>`,
  "OLMo 3 <function_calls>": (b) => `<function_calls>write_file(content="${b}")</function_calls>`,
  "xLAM JSON list": (b) => `[{"name": "write_file", "arguments": {"content": "${b}"}}]`,
};

export function familyText(make: (body: string) => string, size: number): string {
  const frame = make("").length;
  // A format that writes the body more than once shares the size among the copies.
  const copies = make("x").length - frame;
  const length = Math.max(0, Math.floor((size - frame) / copies));
  const body = "text of the file, with {braces} and [brackets] and <tags>; ".repeat(Math.ceil(size / 50)).slice(0, length);
  return make(body);
}
