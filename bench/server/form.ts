/**
 * A realistic tool input: a dozen fields, as real servers declare them (strings with
 * formats, enums, a nested object, arrays, bounds). LangChain validates JSON-Schema input
 * on every call, so the cost of a schema like this one never shows with `echo` alone.
 */
import { z } from "zod";

export const FORM_SHAPE = {
  title: z.string().min(3).max(200).describe("One line that says what is wrong."),
  description: z.string().max(10_000).describe("What happened, what was expected."),
  reporterEmail: z.email(),
  requestId: z.uuid(),
  priority: z.enum(["low", "medium", "high", "urgent"]),
  category: z.enum(["bug", "feature", "question", "incident", "billing"]),
  dueAt: z.iso.datetime().optional(),
  link: z.url().optional(),
  estimateHours: z.number().min(0).max(1000).optional(),
  notify: z.boolean(),
  tags: z.array(z.string().max(40)).max(10),
  assignee: z.object({
    name: z.string(),
    email: z.email(),
    team: z.enum(["platform", "payments", "support", "growth"]),
    onCall: z.boolean().optional(),
  }),
  attachments: z.array(z.object({ name: z.string(), url: z.url(), sizeBytes: z.number().int().nonnegative() })).max(5).optional(),
};

export type FormArgs = z.infer<z.ZodObject<typeof FORM_SHAPE>>;

/** Arguments a model would send: every field filled in, so every rule of the schema runs. */
export const FORM_ARGS: FormArgs = {
  title: "Checkout fails for EU cards",
  description: "Since 09:40 UTC, card payments from EU issuers fail with a 502 at the confirm step. About 4% of checkouts.",
  reporterEmail: "ana.lopez@example.com",
  requestId: "3f2b8c1e-9d4a-4f6b-8e2a-1c5d7e9f0a3b",
  priority: "high",
  category: "incident",
  dueAt: "2026-11-24T17:00:00Z",
  link: "https://status.example.com/incidents/8812",
  estimateHours: 6,
  notify: true,
  tags: ["payments", "eu", "checkout"],
  assignee: { name: "Sam Okafor", email: "sam.okafor@example.com", team: "payments", onCall: true },
  attachments: [{ name: "har.json", url: "https://files.example.com/a/har.json", sizeBytes: 48_213 }],
};

export const formReply = (args: { requestId: string; priority: string }): string => `ticket ${args.requestId} filed (${args.priority})`;
