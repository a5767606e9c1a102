import { Box, Text } from "ink";
import { splitAtCursor } from "./input-buffer.js";
import { FORM_BUTTONS, type FormState } from "./elicitation-form.js";
import type { FormField } from "../prompts/elicitation-fields.js";
import { oneLine } from "../render/one-line.js";
import { OPEN_CHOICES, type ServerQuestion } from "./server-questions.js";

/** Lines of a sampling request's messages shown; the rest are counted. */
const SHOWN_MESSAGES = 5;
const SHOWN_CHARS = 300;

const SAMPLING_CHOICES = [
  { key: "y", label: "Allow once" },
  { key: "a", label: "Always allow this server (this session)" },
  { key: "n", label: "Deny (you can say why)" },
] as const;

/** Fields shown at once; the rest scroll with the focus. */
const SHOWN_FIELDS = 10;

const cut = (text: string, max = SHOWN_CHARS): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The server question on screen: a sampling approval, a form, a URL or a login to open. */
export function ServerQuestionView({ question, waiting, declined = 0 }: { question: ServerQuestion; waiting: number; declined?: number }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      {question.kind === "sampling" && <SamplingView question={question} />}
      {question.kind === "form" && <FormView question={question} />}
      {(question.kind === "url" || question.kind === "login") && <OpenView question={question} />}
      {waiting > 0 && (
        <Text dimColor>
          {waiting} more question{waiting === 1 ? "" : "s"} waiting{declined > 0 ? ` · ${declined} more declined` : ""}
        </Text>
      )}
    </Box>
  );
}

function SamplingView({ question }: { question: Extract<ServerQuestion, { kind: "sampling" }> }) {
  const { request, dialog } = question;
  const shown = request.messages.slice(-SHOWN_MESSAGES);
  return (
    <>
      <Text>
        <Text bold color="magenta">
          Server {oneLine(request.server)}
        </Text>
        <Text> asks to use the model </Text>
        <Text bold>{oneLine(request.model)}</Text>
        <Text dimColor> · up to {request.maxTokens} tokens</Text>
      </Text>
      {request.systemPrompt !== undefined && <Text dimColor>system: {cut(oneLine(request.systemPrompt))}</Text>}
      {request.messages.length > shown.length && <Text dimColor>({request.messages.length - shown.length} earlier messages)</Text>}
      {shown.map((message, index) => (
        <Text key={index}>{cut(oneLine(message))}</Text>
      ))}
      {request.tools.length > 0 && <Text dimColor>tools offered: {cut(request.tools.map(oneLine).join(", "))}</Text>}
      <Choices choices={SAMPLING_CHOICES} selected={dialog.selected} />
      {dialog.reason !== undefined && (
        <Text>
          Reason (Enter to deny): {oneLine(dialog.reason.text)}
          <Text inverse> </Text>
        </Text>
      )}
    </>
  );
}

function FormView({ question }: { question: Extract<ServerQuestion, { kind: "form" }> }) {
  const { form } = question;
  // A window of fields around the focus (on a button: the last ones), so a long form fits the screen.
  const focus = Math.min(form.focus, form.fields.length - 1);
  const first = Math.max(0, Math.min(focus - Math.floor(SHOWN_FIELDS / 2), form.fields.length - SHOWN_FIELDS));
  return (
    <>
      <Text>
        <Text bold color="magenta">
          Server {question.server}
        </Text>
        <Text> asks: </Text>
        <Text>{question.message}</Text>
      </Text>
      <Box flexDirection="column" marginTop={1}>
        {first > 0 && <Text dimColor>  ↑ {first} more</Text>}
        {form.fields.slice(first, first + SHOWN_FIELDS).map((field, index) => (
          <FieldView key={field.name} field={field} form={form} focused={first + index === form.focus} />
        ))}
        {form.fields.length > first + SHOWN_FIELDS && <Text dimColor>  ↓ {form.fields.length - first - SHOWN_FIELDS} more</Text>}
      </Box>
      <Box marginTop={1} gap={2}>
        {FORM_BUTTONS.map((button, index) => {
          const focused = form.focus === form.fields.length + index;
          return (
            <Text key={button.label} inverse={focused} color={focused ? "cyan" : undefined}>
              [ {button.label} ]
            </Text>
          );
        })}
      </Box>
      <Text dimColor>Tab/↑↓ move · Enter next · ←→ and Space choose · Esc cancels</Text>
    </>
  );
}

function FieldView({ field, form, focused }: { field: FormField; form: FormState; focused: boolean }) {
  const error = form.errors[field.name];
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={focused ? "cyan" : undefined}>{focused ? "❯ " : "  "}</Text>
        <Text bold>{field.title}</Text>
        {field.required && <Text color="red">*</Text>}
        <Text>: </Text>
        <FieldValueView field={field} form={form} focused={focused} />
      </Text>
      {focused && field.description !== undefined && <Text dimColor>    {field.description}</Text>}
      {error !== undefined && <Text color="red">    {error}</Text>}
    </Box>
  );
}

function FieldValueView({ field, form, focused }: { field: FormField; form: FormState; focused: boolean }) {
  const value = form.values[field.name];
  const at = form.cursor[field.name] ?? 0;
  switch (field.kind) {
    case "boolean":
      return <Text>{value === true ? "[x] yes" : "[ ] no"}</Text>;
    case "choice":
    case "multi": {
      const picked = (choice: string): boolean => (Array.isArray(value) ? value.includes(choice) : value === choice);
      return (
        <Text>
          {(field.choices ?? []).map((choice, index) => (
            <Text key={choice.value} underline={focused && index === at} color={picked(choice.value) ? "green" : undefined}>
              {field.kind === "multi" ? (picked(choice.value) ? "[x] " : "[ ] ") : picked(choice.value) ? "(•) " : "( ) "}
              {choice.label}
              {"  "}
            </Text>
          ))}
        </Text>
      );
    }
    default: {
      const buffer = form.text[field.name];
      if (!buffer) return null;
      if (!focused) return <Text>{oneLine(buffer.text)}</Text>;
      const { before, under, after } = splitAtCursor(buffer);
      return (
        <Text>
          {oneLine(before)}
          <Text inverse>{under === "" ? " " : under}</Text>
          {oneLine(after)}
        </Text>
      );
    }
  }
}

function OpenView({ question }: { question: Extract<ServerQuestion, { kind: "url" | "login" }> }) {
  return (
    <>
      {question.kind === "url" ? (
        <>
          <Text>
            <Text bold color="magenta">
              Server {question.server}
            </Text>
            <Text> asks you to open a page: </Text>
            <Text>{question.message}</Text>
          </Text>
          <Text color="cyan">{question.url}</Text>
        </>
      ) : (
        <Text>
          <Text bold color="magenta">
            Server {question.server}
          </Text>
          <Text> needs you to log in (OAuth) in your browser.</Text>
        </Text>
      )}
      <Choices choices={OPEN_CHOICES} selected={question.selected} />
      <Text dimColor>Esc cancels</Text>
    </>
  );
}

function Choices({ choices, selected }: { choices: readonly { key: string; label: string }[]; selected: number }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      {choices.map((choice, index) => (
        <Text key={choice.key} color={index === selected ? "cyan" : undefined}>
          {index === selected ? "❯ " : "  "}
          {choice.key}) {choice.label}
        </Text>
      ))}
    </Box>
  );
}
