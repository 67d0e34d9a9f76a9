// The processes a process started, read from /proc (Linux), so that a test can check that none of
// them is left once the one that started them has stopped.
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";

export interface ProcessId {
  pid: number;
  /** Start time in clock ticks since boot: a pid alone may be reused by an unrelated process. */
  startTicks: string;
  command: string;
}

function stat(pid: number): { ppid: number; startTicks: string; command: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command is in parentheses and may contain spaces; the fields after it are fixed.
    const close = text.lastIndexOf(")");
    const fields = text.slice(close + 2).split(" ");
    return { ppid: Number(fields[1]), startTicks: fields[19]!, command: text.slice(text.indexOf("(") + 1, close) };
  } catch {
    return undefined;
  }
}

/** `root` and every process descending from it, now. */
export function processTree(root: number): ProcessId[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const info = stat(pid);
    if (info) children.set(info.ppid, [...(children.get(info.ppid) ?? []), pid]);
  }
  const tree: ProcessId[] = [];
  const visit = (pid: number) => {
    const info = stat(pid);
    if (!info) return;
    tree.push({ pid, startTicks: info.startTicks, command: info.command });
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return tree;
}

/** Those of `processes` still running (the same process, not a reuse of its pid); zombies count as gone. */
export function stillRunning(processes: ProcessId[]): ProcessId[] {
  return processes.filter(({ pid, startTicks }) => {
    const info = stat(pid);
    if (!info || info.startTicks !== startTicks) return false;
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    return state !== "Z";
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Samples `root`'s tree every `everyMs` into `seen` (by pid) until `until` settles: the processes a
 * process started during its whole life, even those that had exited before it stopped.
 */
export function watchProcessTree(root: number, seen: Map<number, ProcessId>, until: Promise<unknown>, everyMs = 200): void {
  const sample = () => {
    for (const process of processTree(root)) seen.set(process.pid, process);
  };
  const timer = setInterval(sample, everyMs);
  void until.then(() => clearInterval(timer));
}
