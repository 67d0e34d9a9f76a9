import type { Participant, Room } from "livekit-client";
import { h, icon } from "../../shared/dom.ts";
import { iconPaths } from "../icons.ts";
import { displayNameOf } from "../participant-tile.ts";
import type { RoomApi } from "../room-api.ts";
import { ordinal } from "../room/hands.ts";
import { spotlightOf, type ViewState } from "../room/stage-layout.ts";
import type { PanelFeedback } from "./panel-tools.ts";

/** The role the server gave a participant (their `role` attribute). */
export const roleOf = (participant: Participant) => participant.attributes.role ?? "guest";

/**
 * What the people list shows on a person's line besides name, role and microphone: their raised
 * hand (which oneself and a host can lower), and "More": pin for oneself, and for a host,
 * spotlight for everyone and make host or take it back. Every action but the pin is the room
 * API's, which the server authorizes; `render` redraws the list after a menu opens or closes.
 */
export function personExtras(deps: { room: Room; api: RoomApi; isHost: boolean; feedback: PanelFeedback; view: ViewState; render: () => void }) {
  const { room, api, isHost, feedback, view, render } = deps;
  /** Whose "More" menu is open (one at a time; kept across re-renders). */
  let menuOpenFor: string | undefined;

  /** The raised hand: for oneself and for a host a button that lowers it, else a picture with its place in line. */
  function handBadge(participant: Participant, place: number, local: boolean) {
    const name = displayNameOf(participant);
    const content = [icon(iconPaths("hand")), h("span", { class: "hand-place" }, String(place))];
    if (local || isHost)
      return h(
        "button",
        {
          type: "button",
          class: "hand-badge",
          title: "Lower hand",
          "aria-label": local ? `Lower your hand (raised ${ordinal(place)})` : `Lower ${name}'s hand (raised ${ordinal(place)})`,
          onclick: () => void feedback.act(local ? "Your hand is lowered." : `Lowered ${name}'s hand.`, api.hand(local ? "self" : participant.identity, false)),
        },
        ...content,
      );
    return h("span", { class: "hand-badge", role: "img", "aria-label": `Hand raised, ${ordinal(place)}`, title: `Hand raised, ${ordinal(place)}` }, ...content);
  }

  /** "More" for one person: a disclosure with the rarer actions, each named for whom it acts on. */
  function moreMenu(participant: Participant, local: boolean) {
    const name = displayNameOf(participant);
    const identity = participant.identity;
    const open = menuOpenFor === identity;
    const menuId = `person-menu-${identity}`;
    const toggle = h(
      "button",
      {
        type: "button",
        class: "button small icon-only",
        "aria-label": `More for ${local ? "you" : name}`,
        title: "More",
        "aria-expanded": open ? "true" : "false",
        "aria-controls": menuId,
        onclick: () => {
          menuOpenFor = open ? undefined : identity;
          render();
        },
      },
      icon(iconPaths("more")),
    );
    const item = (label: string, run: () => void) =>
      h(
        "button",
        {
          type: "button",
          class: "button small secondary",
          onclick: () => {
            menuOpenFor = undefined;
            run();
            render();
          },
        },
        label,
      );
    const pinned = view.pinned === identity;
    const spotlit = spotlightOf(room.metadata) === identity;
    const role = roleOf(participant);
    const menu = open
      ? h(
          "div",
          { id: menuId, class: "person-menu", role: "group", "aria-label": `More for ${local ? "you" : name}` },
          item(pinned ? `Unpin ${local ? "yourself" : name}` : `Pin ${local ? "yourself" : name} for me`, () => view.setPinned(pinned ? undefined : identity)),
          isHost
            ? item(
                spotlit ? `End the spotlight on ${local ? "you" : name}` : `Spotlight ${local ? "yourself" : name} for everyone`,
                () =>
                  void feedback.act(spotlit ? "The spotlight is off." : `${name} is in the spotlight for everyone.`, api.spotlight(spotlit ? null : identity)),
              )
            : null,
          isHost && !local
            ? role === "host"
              ? item(`Remove ${name} as host`, () => void feedback.act(`${name} is no longer a host.`, api.setHost(identity, false)))
              : item(`Make ${name} a host`, () => void feedback.act(`${name} is now a host.`, api.setHost(identity, true)))
            : null,
        )
      : null;
    return { toggle, menu };
  }

  return { handBadge, moreMenu };
}
