import type { ClaimedDelivery } from "../db/deliveries.ts";

/** The budgets one replica sends within (see DispatcherOptions). */
export interface SlotLimits {
  /** Attempts in flight at once in this process, from launch until their outcome is recorded. */
  concurrency: number;
  /** Requests on the wire at once to one subscription. */
  perEndpoint: number;
  /** Requests on the wire at once to one organization's endpoints. */
  perOrganization: number;
}

interface QueuedDelivery {
  delivery: ClaimedDelivery;
  claimedAt: number;
}

/**
 * What one dispatcher replica holds: deliveries it claimed ahead and queued per endpoint, and the
 * attempts it launched. A launched attempt holds a slot of its endpoint and of its organization
 * while its request is on the wire (`freeSlot` gives them back as soon as the answer is in), and
 * counts against the process until its outcome is recorded (`finish`). Only bookkeeping: no I/O,
 * no timers, so the dispatcher's rules about who may be sent next are testable on their own.
 */
export class DeliverySlots {
  readonly #limits: SlotLimits;
  /** Attempts from launch until recorded (the process-wide budget). */
  readonly #launched = new Set<string>();
  /** Launched attempts whose endpoint and organization slots are still held. */
  readonly #holdingSlot = new Map<string, ClaimedDelivery>();
  readonly #onTheWireByEndpoint = new Map<string, number>();
  readonly #onTheWireByOrganization = new Map<string, number>();
  /** Leased deliveries waiting for a slot of their endpoint, oldest first, by subscription. */
  readonly #queued = new Map<string, QueuedDelivery[]>();
  #queuedCount = 0;

  constructor(limits: SlotLimits) {
    this.#limits = limits;
  }

  /** Attempts launched and not yet finished. */
  get launchedCount(): number {
    return this.#launched.size;
  }

  get queuedCount(): number {
    return this.#queuedCount;
  }

  /** Keeps a claimed delivery until its endpoint has a free slot. */
  enqueue(delivery: ClaimedDelivery, claimedAt: number): void {
    const entries = this.#queued.get(delivery.subscriptionId);
    if (entries) entries.push({ delivery, claimedAt });
    else this.#queued.set(delivery.subscriptionId, [{ delivery, claimedAt }]);
    this.#queuedCount++;
  }

  /**
   * Takes the queued deliveries that may be sent now (their endpoint, their organization and the
   * process have room), oldest first per endpoint, and counts each as launched, holding its slots.
   */
  launchable(): ClaimedDelivery[] {
    const launched: ClaimedDelivery[] = [];
    for (const [subscriptionId, entries] of this.#queued) {
      while (entries.length > 0 && this.#launched.size < this.#limits.concurrency) {
        const { delivery } = entries[0]!;
        const room =
          (this.#onTheWireByEndpoint.get(subscriptionId) ?? 0) < this.#limits.perEndpoint &&
          (this.#onTheWireByOrganization.get(delivery.orgId) ?? 0) < this.#limits.perOrganization;
        if (!room) break;
        entries.shift();
        this.#queuedCount--;
        this.#launch(delivery);
        launched.push(delivery);
      }
      if (entries.length === 0) this.#queued.delete(subscriptionId);
    }
    return launched;
  }

  #launch(delivery: ClaimedDelivery) {
    this.#launched.add(delivery.id);
    this.#holdingSlot.set(delivery.id, delivery);
    countUp(this.#onTheWireByEndpoint, delivery.subscriptionId);
    countUp(this.#onTheWireByOrganization, delivery.orgId);
  }

  /** The attempt's request is over: its endpoint and organization slots are free. False when they already were. */
  freeSlot(deliveryId: string): boolean {
    const delivery = this.#holdingSlot.get(deliveryId);
    if (!delivery) return false;
    this.#holdingSlot.delete(deliveryId);
    countDown(this.#onTheWireByEndpoint, delivery.subscriptionId);
    countDown(this.#onTheWireByOrganization, delivery.orgId);
    return true;
  }

  /** The attempt is over and recorded (or given up): it frees its slots if it still held them, and the process's. */
  finish(deliveryId: string): void {
    this.freeSlot(deliveryId);
    this.#launched.delete(deliveryId);
  }

  /** Removes and answers the queued deliveries `shouldTake` picks (to hand their leases back). */
  takeQueued(shouldTake: (entry: QueuedDelivery) => boolean): ClaimedDelivery[] {
    const taken: ClaimedDelivery[] = [];
    for (const [subscriptionId, entries] of this.#queued) {
      const kept = entries.filter((entry) => !shouldTake(entry));
      for (const entry of entries) if (!kept.includes(entry)) taken.push(entry.delivery);
      if (kept.length === 0) this.#queued.delete(subscriptionId);
      else this.#queued.set(subscriptionId, kept);
    }
    this.#queuedCount -= taken.length;
    return taken;
  }

  /** Requests on the wire plus queued deliveries, per subscription: what the next claim must leave room for. */
  heldPerEndpoint(): Map<string, number> {
    return this.#held(this.#onTheWireByEndpoint, (delivery) => delivery.subscriptionId);
  }

  /** The same per organization. */
  heldPerOrganization(): Map<string, number> {
    return this.#held(this.#onTheWireByOrganization, (delivery) => delivery.orgId);
  }

  #held(onTheWire: ReadonlyMap<string, number>, keyOf: (delivery: ClaimedDelivery) => string): Map<string, number> {
    const counts = new Map(onTheWire);
    for (const entries of this.#queued.values()) for (const { delivery } of entries) countUp(counts, keyOf(delivery));
    return counts;
  }

  /** Some endpoint or organization has every slot on the wire: due work may be waiting for it. */
  atCapacity(): boolean {
    const atLimit = (counts: ReadonlyMap<string, number>, limit: number) => [...counts.values()].some((count) => count >= limit);
    return atLimit(this.#onTheWireByEndpoint, this.#limits.perEndpoint) || atLimit(this.#onTheWireByOrganization, this.#limits.perOrganization);
  }
}

function countUp(counts: Map<string, number>, key: string) {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function countDown(counts: Map<string, number>, key: string) {
  const count = (counts.get(key) ?? 1) - 1;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
