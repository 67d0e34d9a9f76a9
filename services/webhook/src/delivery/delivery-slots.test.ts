import { describe, expect, it } from "vitest";
import type { ClaimedDelivery } from "../db/deliveries.ts";
import { DeliverySlots } from "./delivery-slots.ts";

let sequence = 0;
/** A claimed delivery to `subscriptionId` of `orgId`; only the ids matter to the bookkeeping. */
const delivery = (subscriptionId: string, orgId = "org-a"): ClaimedDelivery => ({ id: `delivery-${++sequence}`, subscriptionId, orgId }) as ClaimedDelivery;

const ids = (deliveries: ClaimedDelivery[]) => deliveries.map((each) => each.id);

describe("DeliverySlots", () => {
  it("launches queued deliveries oldest first, up to the endpoint's slots, and refills a freed slot", () => {
    const slots = new DeliverySlots({ concurrency: 100, perEndpoint: 2, perOrganization: 100 });
    const queued = [delivery("s1"), delivery("s1"), delivery("s1")];
    for (const each of queued) slots.enqueue(each, 0);
    expect(ids(slots.launchable())).toEqual(ids(queued.slice(0, 2)));
    expect(slots.queuedCount).toBe(1);
    expect(slots.launchable()).toEqual([]);
    expect(slots.freeSlot(queued[0]!.id)).toBe(true);
    expect(ids(slots.launchable())).toEqual([queued[2]!.id]);
    expect(slots.queuedCount).toBe(0);
  });

  it("a busy endpoint does not hold back another endpoint's deliveries", () => {
    const slots = new DeliverySlots({ concurrency: 100, perEndpoint: 1, perOrganization: 100 });
    const [a1, a2, b1] = [delivery("a"), delivery("a"), delivery("b")];
    for (const each of [a1!, a2!, b1!]) slots.enqueue(each, 0);
    expect(ids(slots.launchable())).toEqual([a1!.id, b1!.id]);
  });

  it("keeps an organization within its slots over all its endpoints", () => {
    const slots = new DeliverySlots({ concurrency: 100, perEndpoint: 10, perOrganization: 2 });
    const mine = [delivery("a", "org-a"), delivery("b", "org-a"), delivery("c", "org-a")];
    const theirs = delivery("d", "org-b");
    for (const each of [...mine, theirs]) slots.enqueue(each, 0);
    expect(ids(slots.launchable())).toEqual([mine[0]!.id, mine[1]!.id, theirs.id]);
    expect(slots.atCapacity()).toBe(true);
  });

  it("counts an attempt against the process until it finishes, even after its slot is free", () => {
    const slots = new DeliverySlots({ concurrency: 1, perEndpoint: 10, perOrganization: 10 });
    const [first, second] = [delivery("a"), delivery("b")];
    slots.enqueue(first!, 0);
    slots.enqueue(second!, 0);
    expect(ids(slots.launchable())).toEqual([first!.id]);
    slots.freeSlot(first!.id);
    expect(slots.launchable()).toEqual([]);
    expect(slots.launchedCount).toBe(1);
    slots.finish(first!.id);
    expect(slots.launchedCount).toBe(0);
    expect(ids(slots.launchable())).toEqual([second!.id]);
  });

  it("frees a slot once: a second free, or finishing after it, changes nothing", () => {
    const slots = new DeliverySlots({ concurrency: 10, perEndpoint: 1, perOrganization: 10 });
    const [first, second, third] = [delivery("a"), delivery("a"), delivery("a")];
    for (const each of [first!, second!, third!]) slots.enqueue(each, 0);
    slots.launchable();
    expect(slots.freeSlot(first!.id)).toBe(true);
    expect(slots.freeSlot(first!.id)).toBe(false);
    slots.finish(first!.id);
    expect(ids(slots.launchable())).toEqual([second!.id]);
    expect(slots.launchable()).toEqual([]);
  });

  it("reports what it holds per endpoint and organization, on the wire and queued, for the next claim", () => {
    const slots = new DeliverySlots({ concurrency: 10, perEndpoint: 1, perOrganization: 10 });
    for (const each of [delivery("a", "org-a"), delivery("a", "org-a"), delivery("b", "org-b")]) slots.enqueue(each, 0);
    slots.launchable();
    expect(slots.heldPerEndpoint()).toEqual(
      new Map([
        ["a", 2],
        ["b", 1],
      ]),
    );
    expect(slots.heldPerOrganization()).toEqual(
      new Map([
        ["org-a", 2],
        ["org-b", 1],
      ]),
    );
  });

  it("hands back the queued deliveries picked, and only those", () => {
    const slots = new DeliverySlots({ concurrency: 10, perEndpoint: 1, perOrganization: 10 });
    const [stale, fresh, other] = [delivery("a"), delivery("a"), delivery("b")];
    slots.enqueue(stale!, 1_000);
    slots.enqueue(fresh!, 5_000);
    slots.enqueue(other!, 1_000);
    expect(ids(slots.takeQueued((entry) => entry.claimedAt <= 2_000))).toEqual([stale!.id, other!.id]);
    expect(slots.queuedCount).toBe(1);
    expect(ids(slots.launchable())).toEqual([fresh!.id]);
    expect(slots.takeQueued(() => true)).toEqual([]);
  });
});
