/**
 * The OAuth scopes of the API and what each lets an application do, in the words the consent
 * page shows and the API reference lists. The first four are the specification's; meeting.read, meeting.update and
 * meeting.delete cover the scheduling endpoints (list and get, and who attended; update and end; cancel);
 * meeting.links covers personal join links (create, revoke); recording.read and recording.manage cover
 * the recordings of meetings (list, get and download; start, stop and delete); transcript.read and
 * transcript.manage cover their transcripts (list, get and download; delete, and the organization's
 * transcription default); webhook.update
 * covers changing a subscription, rotating its secret and recovering its failed deliveries.
 */
export const SCOPE_DESCRIPTIONS = {
  "meeting.create": "Create meetings for you",
  "meeting.read": "See your meetings and who attends them",
  "meeting.update": "Reschedule, change and end your meetings",
  "meeting.delete": "Cancel your meetings",
  "meeting.links": "Create and revoke personal join links to your meetings, which let whoever holds one enter as the invited host, attendee or guest it names",
  "recording.read": "See your meetings' recordings and get links that let anyone holding them watch or download a recording",
  "recording.manage": "Start and stop recording your meetings (everyone in the meeting sees that it is being recorded) and delete recordings",
  "transcript.read": "Read the transcripts of your meetings (who said what) and get links that let anyone holding them read a transcript",
  "transcript.manage": "Delete transcripts and set whether your organization's new meetings are transcribed",
  "webhook.create": "Register webhooks that are called when your organization's meetings end",
  "webhook.read": "See your organization's webhooks",
  "webhook.update": "Change your organization's webhooks: their address, events and limits, their signing secrets, and redelivering failed events",
  "webhook.delete": "Delete your organization's webhooks",
} as const;

export type Scope = keyof typeof SCOPE_DESCRIPTIONS;
export const ALL_SCOPES = Object.keys(SCOPE_DESCRIPTIONS) as [Scope, ...Scope[]];
