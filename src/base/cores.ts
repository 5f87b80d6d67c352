/** Whether this machine has a core to spare for a helper thread (a check pool, a folder reader). */
import { availableParallelism, loadavg } from "node:os";

/**
 * Whether a core is idle: the 1-minute load average leaves at least one of the cores this process may use free. On a
 * machine whose cores are all busy a helper thread cannot run beside the main thread; it only adds its own start-up
 * and hand-over costs to the process's share of the CPU (measured for the check pool and for the folder reader).
 */
export function idleCore(): boolean {
  return loadavg()[0] <= availableParallelism() - 1;
}
