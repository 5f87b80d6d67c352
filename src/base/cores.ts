/** Whether this machine has cores to spare for helper threads (a check pool, a folder reader). */
import { availableParallelism, loadavg } from "node:os";

/**
 * Whether `n` helper threads have idle cores to run on: the machine has a core for each and one for the main thread,
 * and the 1-minute load average leaves at least `n` of the cores this process may use free. On a machine whose cores
 * are all busy a helper thread cannot run beside the main thread; it only adds its own start-up and hand-over costs
 * to the process's share of the CPU (measured for the check pool and for the folder reader).
 */
export function idleCores(n: number, load: number = loadavg()[0]!, cores: number = availableParallelism()): boolean {
  return cores > n && load <= cores - n;
}

/** Whether a core is idle for one helper thread beside the main thread. */
export function idleCore(): boolean {
  return idleCores(1);
}
