/**
 * The document's `info.description` (CommonMark): what the API is for, and how a scheduling tool
 * built on Cal.com's video adapter contract calls it. The API reference page (/docs) shows it as
 * its introduction; its headings become entries of the page's navigation.
 */
export const apiIntroduction = `Create video meetings, verify credentials, run the OAuth 2.0 authorization-code flow and subscribe webhooks that fire when meetings start and end and when people join and leave their rooms.

Every call under \`/api/v1\` except the OAuth endpoints, the join grant and this document needs \`Authorization: Bearer <token>\`: an API key (\`svc_…\`, every scope) or an OAuth 2.0 access token (its scopes decide). Errors are JSON, \`{"error": "…", "requestId": "…"}\`, with the message naming what was wrong.

**API keys and roles (a deliberate deviation from the specification).** The specification gives an API key "full access to all endpoints" and keeps 403 for a missing OAuth scope. Here an API key acts for the user who made it, with every scope but that user's role: a few operations change what the organization administers or destroy its records (every change to \`/webhook\` subscriptions: create, update, delete, enable, rotate the secret, recover, retry, test; \`DELETE /recordings/{recordingId}\`, \`DELETE /transcripts/{transcriptId}\` and \`PUT /transcription-settings\`), and a member's key gets 403 \`{"error": "Only an admin of the organization can do this"}\` for them, as the member would in the dashboard. Why: any member may make API keys for themselves, so a key with more rights than its user would let every member become an admin (re-point the organization's webhooks to read every meeting's events, delete recordings) by making a key; taking keys away from members instead would take the API away from them. An admin's key has full access, as the specification says.

## Using svc from Cal.com

Cal.com's video apps implement its \`VideoApiAdapter\`: three calls, each one request to svc. The meeting's \`id\` is what Cal.com stores as the booking reference's \`meetingId\`; \`url\` is the link it puts into the invitation.

| Adapter call | svc request | Answer |
|---|---|---|
| \`createMeeting(event)\` | \`POST /api/v1/meeting\` with \`title\`, \`start\`, \`end\`, \`attendees\` | \`{type, id, password, url}\`: Cal.com's \`VideoCallData\` as it is |
| \`updateMeeting(bookingRef, event)\` | \`PATCH /api/v1/meeting/{id}\` with the fields that changed | the stored meeting; the \`url\` stays the same |
| \`deleteMeeting(uid)\` | \`DELETE /api/v1/meeting/{id}\` | the meeting, \`status: "cancelled"\`; calling it again changes nothing |

**createMeeting**: a booking becomes a meeting.

\`\`\`http
POST /api/v1/meeting
Authorization: Bearer svc_…
Content-Type: application/json

{
  "title": "Intro call: Ada and Grace",
  "start": "2026-06-01T09:00:00Z",
  "end": "2026-06-01T09:30:00Z",
  "attendees": ["ada@example.com", "grace@example.com"]
}
\`\`\`

\`\`\`json
{ "type": "svc_video", "id": "Xj3k9QmR2vT8pL5nW1cY0a", "password": "", "url": "https://svc.example.com/meeting/Xj3k9QmR2vT8pL5nW1cY0a" }
\`\`\`

Return this body from \`createMeeting\` unchanged. \`end\` is optional (or give \`duration\` in minutes instead); a meeting past its end with nobody in it ends by itself.

**updateMeeting**: a reschedule, or a changed guest list, sends only what changed.

\`\`\`http
PATCH /api/v1/meeting/Xj3k9QmR2vT8pL5nW1cY0a
Authorization: Bearer svc_…
Content-Type: application/json

{
  "start": "2026-06-02T14:00:00Z",
  "end": "2026-06-02T14:30:00Z",
  "attendees": ["ada@example.com", "grace@example.com", "linus@example.com"]
}
\`\`\`

The answer is the stored meeting (\`status\`, \`start\`, \`end\`, \`attendees\`, …) with the same \`id\` and \`url\`, so the invitation's link keeps working; map it to \`{type, id, password, url}\` for Cal.com. \`attendees\` replaces the whole list. Moving \`start\` alone keeps the meeting's length. An ended or cancelled meeting cannot be changed (409).

**deleteMeeting**: a cancelled booking cancels the meeting.

\`\`\`http
DELETE /api/v1/meeting/Xj3k9QmR2vT8pL5nW1cY0a
Authorization: Bearer svc_…
\`\`\`

The meeting answers with \`"status": "cancelled"\`: its join page says so and refuses joins, anyone in the room is disconnected, and subscribers receive \`meeting.cancelled\` (never \`meeting.ended\`). Cancelling twice is harmless, which suits an adapter that retries.

With OAuth instead of an API key, the three calls need the scopes \`meeting.create\`, \`meeting.update\` and \`meeting.delete\`.`;
