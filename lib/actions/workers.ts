import * as z from "zod";

/**
 * A worker removal as the console's handler accepts it: the worker's id as the roster names it
 * (the real server's registration caps ids at 255 characters, WorkerController::register@11d35b7).
 */
export const workerRemovalSchema = z.object({ op: z.literal("remove"), workerId: z.string().min(1).max(255) }).strict();
export type WorkerRemoval = z.infer<typeof workerRemovalSchema>;
