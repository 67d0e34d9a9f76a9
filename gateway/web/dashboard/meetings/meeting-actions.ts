import { h, replaceChildren } from "../../shared/dom.ts";
import { api, submitting, type Schema } from "../app-shell.ts";
import { confirmedButton, copyField, field } from "../widgets.ts";

type Meeting = Schema<"Meeting">;

export interface MeetingActionsContext {
  /** Shows the API's answer above the page. */
  say(result: { ok: boolean; error: string }, success: string): void;
  /** Reads the meeting again after a change. */
  reload(): void;
}

/**
 * What a dashboard user may do to a meeting, each through the API that decides it: end a live
 * one and cancel one that has not happened (both confirmed first), and make a personal join link
 * for an invited person or a named guest (shown once: only its hash is kept). The meeting service
 * refuses what the caller may not do, and its message is shown.
 */
export function meetingActions(meeting: Meeting, context: MeetingActionsContext) {
  const id = encodeURIComponent(meeting.id);
  const buttons: Node[] = [];
  if (meeting.status === "live") {
    buttons.push(
      confirmedButton({
        label: "End meeting",
        ariaLabel: "End the meeting for everyone",
        tone: "danger",
        confirm: {
          title: "End this meeting for everyone?",
          message: `Everyone in “${meeting.title}” is disconnected now and nobody can enter it again. Receivers of meeting.ended are told.`,
          action: "End meeting",
        },
        onConfirmed: async () => {
          const result = await api("POST", `/meeting/${id}/end`);
          context.say(result, "The meeting was ended.");
          if (result.ok) context.reload();
        },
      }),
    );
  }
  if (meeting.status === "scheduled" || meeting.status === "live") {
    buttons.push(
      confirmedButton({
        label: "Cancel meeting",
        ariaLabel: "Cancel the meeting",
        tone: "danger",
        confirm: {
          title: "Cancel this meeting?",
          message: `“${meeting.title}” is cancelled for good: its join link stops working${meeting.status === "live" ? " and everyone in its room is disconnected" : ""}. Receivers of meeting.cancelled are told.`,
          action: "Cancel meeting",
        },
        onConfirmed: async () => {
          const result = await api("DELETE", `/meeting/${id}`);
          context.say(result, "The meeting was cancelled.");
          if (result.ok) context.reload();
        },
      }),
    );
  }
  // An ended or cancelled meeting takes no action any more: the section is left out.
  if (meeting.status === "ended" || meeting.status === "cancelled") return null;
  return h(
    "section",
    { class: "card", "aria-labelledby": "actions-title" },
    h("h2", { id: "actions-title" }, "Actions"),
    h("div", { class: "actions" }, buttons),
    personalLinkForm(meeting),
  );
}

/** Makes a personal join link for one invited person (their role) or a named guest; the link is shown once. */
function personalLinkForm(meeting: Meeting) {
  const invited = [...meeting.hosts.map((email) => ({ email, role: "host" })), ...meeting.attendees.map((email) => ({ email, role: "attendee" }))];
  const person = h(
    "select",
    { name: "person" },
    invited.map(({ email, role }) => h("option", { value: email }, `${email} (${role})`)),
    h("option", { value: "" }, "A guest (not invited)"),
  );
  const name = h("input", { type: "text", name: "name", maxlength: 64, autocomplete: "off" });
  const nameField = field("Guest's name", name, "Shown in the room; the join page fills it in.");
  const showName = () => (nameField.hidden = person.value !== "");
  person.addEventListener("change", showName);
  showName();
  const message = h("div", { class: "form-message" });
  const created = h("div", {});
  const form = h(
    "form",
    {
      class: "link-form",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        replaceChildren(created);
        const body = person.value ? { email: person.value } : { role: "guest" as const, name: name.value };
        const result = await submitting(form, message, () => api<Schema<"JoinLink">>("POST", `/meeting/${encodeURIComponent(meeting.id)}/links`, body));
        if (!result.ok) return;
        replaceChildren(
          created,
          h(
            "div",
            { class: "secret" },
            h(
              "p",
              { class: "warning" },
              h("strong", {}, "Copy it now. "),
              "The link is shown only this once: we keep only a hash of it. Whoever holds it enters as this person.",
            ),
            copyField(`Personal link for ${result.body.email ?? result.body.name ?? "the guest"}`, result.body.url),
          ),
        );
      },
    },
    h("h3", {}, "Personal join link"),
    field("For", person, "Hosts enter without waiting and may admit, mute and remove people."),
    nameField,
    message,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary" }, "Create personal link")),
  );
  return [form, created];
}
