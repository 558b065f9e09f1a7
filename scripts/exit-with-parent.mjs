// Preloaded (`node --import ./scripts/exit-with-parent.mjs …`) into the children `npm start` spawns (web server,
// trainer worker). Linux reparents an orphan instead of killing it, so when the start process dies without a chance
// to stop its children (SIGKILL, OOM), each child notices its parent changed and stops itself with SIGTERM: the
// worker then checkpoints and re-queues its run, and no process is left holding the ports.
const parent = process.ppid;
const timer = setInterval(() => {
  if (process.ppid !== parent) {
    clearInterval(timer);
    console.error(`[rollout-lab] the start process (pid ${parent}) is gone; stopping pid ${process.pid}.`);
    process.kill(process.pid, "SIGTERM");
  }
}, 1000);
timer.unref();
