export { startDemoFleet, createStarter } from "./fleet";
export type { DemoFleet, DemoFleetOptions, StartRequest } from "./fleet";
export { loseTransport, waitForReadyTask } from "./faults";
export { startCrashingWorker } from "./crashing-worker";
export { seedRuns } from "./seed";
