import type { ElicitRequestFormParams } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { WebServerQuestions, type QuestionEvent } from "../../src/gateway/web-chat/server-questions.js";
import type { ServerQuestion } from "../../src/gateway/web-chat/questions.js";

/** Who is asked a server's question in the web chat, and what the gateway accepts as the answer (the page is tested in test/web). */

const form: ElicitRequestFormParams = {
  message: "Who are you?\u202e",
  requestedSchema: { type: "object", properties: { name: { type: "string", title: "Name\u200b", maxLength: 5 }, age: { type: "integer", minimum: 0 } }, required: ["name"] },
};

function turn(questions: WebServerQuestions, caller = "alice", server = "everything") {
  const events: QuestionEvent[] = [];
  const listener = questions.listen(caller, (event) => events.push(event));
  listener.calling(server, 1);
  const asked = () => events.flatMap((event) => (event.type === "server-question" ? [event.question] : []));
  return { events, listener, asked, question: (): ServerQuestion => asked().at(-1)! };
}

describe("server questions in the web chat", () => {
  it("asks the turn that is running a tool of the server that asks, with its text cleaned", async () => {
    const questions = new WebServerQuestions();
    const other = turn(questions, "alice", "time");
    const mine = turn(questions);
    const answer = questions.elicitForm(form, "everything");
    expect(other.asked()).toEqual([]);
    const question = mine.question();
    expect(question).toMatchObject({ kind: "form", server: "everything", message: "Who are you?" });
    expect(question.kind === "form" && question.fields[0]?.title).toBe("Name");
    expect(await questions.answer(question.id, "alice", { action: "accept", content: { name: "Ada", age: 36 } })).toBeUndefined();
    expect(await answer).toEqual({ action: "accept", content: { name: "Ada", age: 36 } });
  });

  it("declines when no turn of the page is running a tool of that server, and when two clients' turns are", async () => {
    const questions = new WebServerQuestions();
    expect(await questions.elicitForm(form, "everything")).toEqual({ action: "decline" });
    expect(await questions.approveSampling({ server: "everything", messages: [], maxTokens: 10, tools: [], model: "m" }, undefined)).toEqual({ decision: "deny" });
    const alice = turn(questions, "alice");
    const bob = turn(questions, "bob");
    expect(await questions.elicitForm(form, "everything")).toEqual({ action: "decline" });
    expect([...alice.asked(), ...bob.asked()]).toEqual([]);
  });

  it("refuses content that does not fit the form (one line naming the field), and an answer from another client; the question keeps waiting", async () => {
    const questions = new WebServerQuestions();
    const mine = turn(questions);
    const answer = questions.elicitForm(form, "everything");
    const { id } = mine.question();
    expect(await questions.answer(id, "alice", { action: "accept", content: { name: "Adalbert" } })).toEqual({ status: 400, message: "content.name: at most 5 characters" });
    expect(await questions.answer(id, "alice", { action: "accept", content: { age: 3 } })).toEqual({ status: 400, message: "content.name: an answer is needed" });
    expect(await questions.answer(id, "alice", { action: "accept", content: { name: "Ada", admin: true } })).toEqual({ status: 400, message: "content.admin: the form has no such field" });
    expect(await questions.answer(id, "alice", { decision: "allow-once" })).toMatchObject({ status: 400 });
    expect(await questions.answer(id, "bob", { action: "decline" })).toMatchObject({ status: 404 });
    expect(await questions.answer(id, "alice", { action: "decline" })).toBeUndefined();
    expect(await answer).toEqual({ action: "decline" });
    expect(await questions.answer(id, "alice", { action: "decline" })).toMatchObject({ status: 404 });
  });

  it("withdraws a question when its turn ends or the server gives up", async () => {
    const questions = new WebServerQuestions();
    const mine = turn(questions);
    const gaveUp = new AbortController();
    const first = questions.elicitForm(form, "everything", gaveUp.signal);
    gaveUp.abort();
    expect(await first).toEqual({ action: "decline" });
    expect(mine.events.at(-1)).toMatchObject({ type: "server-question-closed", reason: 'server "everything" withdrew its question' });
    const second = questions.approveSampling({ server: "everything", messages: ["user: hi"], maxTokens: 10, tools: [], model: "m" }, undefined);
    mine.listener.close();
    expect(await second).toEqual({ decision: "deny" });
  });

  it("shows a URL as it opens (punycode), refuses one it would not open, and closes the consent when the server says the flow is complete", async () => {
    const questions = new WebServerQuestions();
    const mine = turn(questions);
    const refused = await questions.elicitUrl({ mode: "url", message: "Log in", url: "javascript:alert(1)", elicitationId: "e0" }, "everything");
    expect(refused).toEqual({ action: "decline" });
    expect(mine.events.at(-1)).toEqual({ type: "notice", code: "server-question", message: 'server "everything" asked you to open a page; declined: only https URLs (or http on this machine) are opened, not javascript:' });
    const consent = questions.elicitUrl({ mode: "url", message: "Log in", url: "https://ex\u0430mple.com/login", elicitationId: "e1" }, "everything");
    expect(mine.question()).toMatchObject({ kind: "url", url: "https://xn--exmple-4nf.com/login" });
    questions.hubEvent({ type: "elicitation-complete", server: "everything", elicitationId: "e1" });
    expect(await consent).toEqual({ action: "accept" });
  });

  it("keeps 'allow for this session' in the page: the hub's policy hears allow once", async () => {
    const questions = new WebServerQuestions();
    const mine = turn(questions);
    const asked = questions.approveSampling({ server: "everything", messages: Array.from({ length: 30 }, (_, i) => `user: ${i}`), maxTokens: 10, tools: [], model: "m" }, undefined);
    const question = mine.question();
    expect(question).toMatchObject({ kind: "sampling", earlier: 10, maxTokens: 10 });
    expect(question.kind === "sampling" && question.messages).toHaveLength(20);
    await questions.answer(question.id, "alice", { decision: "allow-session" });
    expect(await asked).toEqual({ decision: "allow-once" });
  });

  it("declines at once past 32 questions waiting for one client, saying so", async () => {
    const questions = new WebServerQuestions();
    const mine = turn(questions);
    for (let i = 0; i < 32; i++) void questions.elicitForm(form, "everything");
    expect(await questions.elicitForm(form, "everything")).toEqual({ action: "decline" });
    expect(mine.events.at(-1)).toMatchObject({ type: "notice", message: 'a question from server "everything" was declined: 32 are already waiting' });
    mine.listener.close();
  });
});
