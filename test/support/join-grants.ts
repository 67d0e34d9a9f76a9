import { expect } from "vitest";
import { connectSignal, type SignalConnection } from "./media-signal.ts";
import { apiBase, callApi } from "./rest-client.ts";
import type { Stack } from "./stack.ts";

export interface MediaGrant {
  token: string;
  serverUrl: string;
}

/** A join grant through the REST API, as the join page asks for one (no credential); it must be 200. */
export async function grantJoin(stack: Stack, meetingId: string, displayName: string): Promise<MediaGrant> {
  const response = await callApi(apiBase(stack), "POST", `/meeting/${meetingId}/join`, { body: { displayName } });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as MediaGrant;
}

/** The media server's signalling connections a test file opens with grants, so it can close them all. */
export function signalConnections() {
  const open: SignalConnection[] = [];
  return {
    async connect(grant: MediaGrant): Promise<SignalConnection> {
      const connection = await connectSignal(grant.serverUrl, grant.token);
      open.push(connection);
      return connection;
    },
    closeAll(): void {
      for (const connection of open.splice(0)) connection.close();
    },
  };
}
