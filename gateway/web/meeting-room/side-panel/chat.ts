import { meetingLimits } from "@svc/platform/contract";
import { h } from "../../shared/dom.ts";
import type { ChatMessage, RoomApi } from "../room-api.ts";
import type { PanelFeedback } from "./panel-tools.ts";

/**
 * The chat: the messages since the meeting started (asked once, then as the server relays them),
 * each with its sender's name and time, shown as text; and the form to send one (Enter sends,
 * Shift+Enter starts a new line).
 */
export function createChat(api: RoomApi, feedback: PanelFeedback) {
  // role=log is a polite live region of its own: new messages are read out, the room's announcer stays the one aria-live region.
  const log = h("ol", { class: "chat-log", role: "log", "aria-labelledby": "chat-heading" });
  const input = h("textarea", {
    id: "chat-input",
    name: "text",
    rows: 1,
    placeholder: "Message everyone",
    maxlength: meetingLimits.chatMessageMaxLength,
    "aria-describedby": "chat-hint",
  });
  // One line to type in with Send beside it, and the hint under both: the panel's height goes to
  // the people and the messages. The label is for screen readers (the placeholder says the same).
  const form = h(
    "form",
    { class: "chat-form" },
    h("label", { for: "chat-input", class: "visually-hidden" }, "Message"),
    h("div", { class: "chat-send" }, input, h("button", { type: "submit", class: "button primary small" }, "Send")),
    h("p", { class: "field-hint", id: "chat-hint" }, `Up to ${meetingLimits.chatMessageMaxLength} characters; not kept after the meeting.`),
  );
  const element = h("section", { class: "panel-section chat", "aria-labelledby": "chat-heading" }, h("h3", { id: "chat-heading" }, "Chat"), log, form);

  const seen = new Set<string>();
  const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });
  function add(message: ChatMessage) {
    if (seen.has(message.id)) return;
    seen.add(message.id);
    // Text nodes only: a link or markup in a message is shown as the text it is.
    log.append(
      h(
        "li",
        { class: "chat-message" },
        h(
          "p",
          { class: "chat-meta" },
          h("span", { class: "chat-name" }, message.displayName),
          " ",
          h("time", { datetime: message.sentAt }, timeFormat.format(new Date(message.sentAt))),
        ),
        h("p", { class: "chat-text" }, message.text),
      ),
    );
    log.scrollTop = log.scrollHeight;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return feedback.say("Type a message first.");
    void api.send(text).then((result) => {
      if (result.ok) {
        input.value = "";
        add(result.body);
        feedback.say("");
      } else feedback.say(result.error);
    });
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  void api.chat().then((result) => {
    if (result.ok) for (const message of result.body.messages) add(message);
  });

  return { element, add };
}
