import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import type {
  CallToolRequestOptions,
  CallToolRequestParams,
  CallToolResult,
  Client,
  InputRequiredResult,
  JsonSchemaType,
  JsonSchemaValidator,
  StandardSchemaV1,
  Tool,
  jsonSchemaValidator,
} from "@modelcontextprotocol/client";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { z } from "zod";

/**
 * tools/call, at less cost per call than v2's Client.callTool on 2025-11-25 and to the same checks.
 *
 * callTool sends a request with no result schema, and v2 then looks the method's schema up on every
 * request by validating `undefined` against it and formatting the failure into a message: that probe
 * cost more than the result's own validation, and compiling the tool's outputSchema again, from the
 * definition given, came on top. Here the result is validated once, against the 2025-11-25 wire shape
 * the codec holds it to, and the outputSchema is compiled once per listed definition.
 *
 * On 2026-07-28 callTool also mirrors declared arguments as headers (SEP-2243) and answers a header
 * mismatch: it is called as it is there.
 */
export function callTool(client: Client, params: CallToolRequestParams, options: CallToolRequestOptions): Promise<CallToolResult | InputRequiredResult> {
  if (client.getProtocolEra() === "modern") return client.callTool(params, options);
  let validator: JsonSchemaValidator<unknown> | undefined;
  let sent: Promise<CallToolResult>;
  try {
    validator = outputValidator(params.name, options.toolDefinition);
    sent = client.request({ method: "tools/call", params }, LEGACY_CALL_TOOL_RESULT, options);
  } catch (error) {
    // Failures before the request is sent reject, as they did from an async function, so callers' catch() sees them.
    return Promise.reject(error);
  }
  // A tool without an outputSchema (nearly all) gets its result as it came, with no async step of ours between.
  if (!validator) return sent;
  const check = validator;
  return sent.then((result) => {
    if (!result.isError) holdToOutputSchema(params.name, result, check);
    return result;
  });
}

/** The keys of other result families (a task, input requests), as v2's codec lists them. */
const FOREIGN_FAMILY_KEYS = ["task", "inputRequests", "requestState"];

/** The 2025-11-25 wire's tools/call result: structuredContent an object. */
const WIRE_CALL_TOOL_RESULT = CallToolResultSchema.extend({ structuredContent: z.record(z.string(), z.unknown()).optional() });

/**
 * A tools/call result as the 2025-11-25 wire has it: WIRE_CALL_TOOL_RESULT, where no content is an empty list, unless
 * the body carries another result family's key (it is then no empty success). The key check is a step before the
 * schema's own, not a zod refinement piped into it: that took a parse of its own on every call.
 */
const LEGACY_CALL_TOOL_RESULT: StandardSchemaV1<unknown, CallToolResult> = {
  "~standard": {
    version: 1,
    vendor: "toolbridge",
    validate: (value) => {
      const foreign = withoutContent(value) ? FOREIGN_FAMILY_KEYS.find((key) => key in value) : undefined;
      if (foreign !== undefined) return { issues: [{ message: `content is required when the body carries '${foreign}'` }] };
      return WIRE_CALL_TOOL_RESULT["~standard"].validate(value) as StandardSchemaV1.Result<CallToolResult>;
    },
  },
};

function withoutContent(value: unknown): value is object {
  return typeof value === "object" && value !== null && !Array.isArray(value) && (value as { content?: unknown }).content === undefined;
}

/**
 * Compiled outputSchemas, one per schema object: a definition listed once is compiled once, and a list
 * listed again brings new objects (the old ones and their validators go with the old list). The Clients
 * take it as their validator too, so a call callTool makes shares what was compiled.
 */
class CompiledSchemas implements jsonSchemaValidator {
  private readonly engine = new AjvJsonSchemaValidator();
  private readonly compiled = new WeakMap<object, JsonSchemaValidator<unknown> | { error: unknown }>();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const outcome = this.compiledFor(schema);
    if ("error" in outcome) throw outcome.error;
    return outcome as JsonSchemaValidator<T>;
  }

  compiledFor(schema: JsonSchemaType): JsonSchemaValidator<unknown> | { error: unknown } {
    let outcome = this.compiled.get(schema);
    if (outcome === undefined) {
      try {
        outcome = this.engine.getValidator(schema);
      } catch (error) {
        outcome = { error };
      }
      this.compiled.set(schema, outcome);
    }
    return outcome;
  }
}

export const compiledSchemas = new CompiledSchemas();

/** The tool's outputSchema compiled, or none; one that does not compile fails the call before it is sent, as in callTool. */
function outputValidator(name: string, tool: Tool | undefined): JsonSchemaValidator<unknown> | undefined {
  if (!tool?.outputSchema) return undefined;
  const outcome = compiledSchemas.compiledFor(tool.outputSchema as JsonSchemaType);
  if (typeof outcome === "function") return outcome;
  const message = (outcome.error instanceof Error ? outcome.error.message : String(outcome.error)).slice(0, 200);
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool '${name}' has an invalid outputSchema: ${message}`);
}

/**
 * A tool result the server gave outside a plain tools/call (a task's, in either form: SEP-1686's `tasks/result` or
 * the tasks extension's `tasks/get`), held to the check callTool makes of a plain call's, with the same errors.
 */
export function checkedToolResult(tool: Tool | undefined, result: CallToolResult): CallToolResult {
  const validator = tool && outputValidator(tool.name, tool);
  if (validator && !result.isError) holdToOutputSchema(tool.name, result, validator);
  return result;
}

/** callTool's check of a result that is not an error, with its errors. */
function holdToOutputSchema(name: string, result: CallToolResult, validator: JsonSchemaValidator<unknown>): void {
  if (result.structuredContent === undefined) {
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Tool ${name} has an output schema but did not return structured content`);
  }
  let outcome: ReturnType<JsonSchemaValidator<unknown>>;
  try {
    outcome = validator(result.structuredContent);
  } catch (error) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to validate structured content: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!outcome.valid) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Structured content does not match the tool's output schema: ${outcome.errorMessage}`);
  }
}
