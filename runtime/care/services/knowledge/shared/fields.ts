/** Fields cards and quizzes share: tags, the lifecycle statuses, the voice instruction. */
import { z } from "zod";

export const STATUSES = ["draft", "caregiver_review", "approved", "archived"] as const;
export type KnowledgeStatus = (typeof STATUSES)[number];

export const tagsSchema = z
  .array(z.string().trim().min(1, "a tag cannot be blank").max(60, "a tag is at most 60 characters"))
  .max(30, "at most 30 tags")
  .transform((tags) => [...new Set(tags)]);

export const voiceInstructionSchema = z.string().max(4000).nullable();

/** Who made a change: the API key's name. */
export const actorOf = (req: { principal?: { name: string } }): string => (req.principal?.name ?? "api").slice(0, 100);
