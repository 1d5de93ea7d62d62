import { z } from 'zod';
import { byCanonicalOrder } from '../../domain/categories';
import {
  MAX_ACTIVITY_DAYS,
  type MemoryActivity,
  type MemoryStats,
  type NamedCount,
} from '../domain/memory-stats';

/** claude-memory-mcp's `/api/stats` shape, counted over what the caller can read. */
export const memoryStatsResponse = z.object({
  total_memories: z.number().int(),
  by_category: z.record(z.string(), z.number().int()),
  by_importance: z
    .record(z.string(), z.number().int())
    .describe('Buckets 0.0-0.2, 0.2-0.4, 0.4-0.6, 0.6-0.8, 0.8-1.0 (each present)'),
  recent_activity: z
    .array(z.object({ date: z.string(), created: z.number().int(), updated: z.number().int() }))
    .describe('Days (UTC) of the last 30 with memories created or updated'),
  sharing_stats: z.object({ shared_by_me: z.number().int(), shared_with_me: z.number().int() }),
});

export const categoriesResponse = z.object({
  categories: z
    .array(z.string())
    .describe('Category names: the canonical ones first (facts, decisions, …), then the others sorted'),
  counts: z.record(z.string(), z.number().int()).describe('Memories per category'),
});

export const tagsResponse = z.object({
  tags: z.array(z.object({ tag: z.string(), count: z.number().int() })).describe('Most used first'),
});

export function presentMemoryStats(stats: MemoryStats): z.infer<typeof memoryStatsResponse> {
  return {
    total_memories: stats.total,
    by_category: { ...stats.byCategory },
    by_importance: { ...stats.byImportance },
    recent_activity: [...stats.recentActivity],
    sharing_stats: { shared_by_me: stats.sharedByMe, shared_with_me: stats.sharedWithMe },
  };
}

export function presentCategories(counts: readonly NamedCount[]): z.infer<typeof categoriesResponse> {
  return {
    categories: counts.map((c) => c.name).sort(byCanonicalOrder),
    counts: Object.fromEntries(counts.map((c) => [c.name, c.count])),
  };
}

export function presentTags(counts: readonly NamedCount[]): z.infer<typeof tagsResponse> {
  return { tags: counts.map((c) => ({ tag: c.name, count: c.count })) };
}

export const memoryActivityQuerySchema = z.object({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_ACTIVITY_DAYS)
    .default(30)
    .describe(`Days (UTC, today included) to count, 1…${MAX_ACTIVITY_DAYS}`),
});

const utcDay = z.string().describe('UTC day, YYYY-MM-DD');

export const memoryActivityResponse = z.object({
  since: z.string().describe('The first day counted (UTC)'),
  by_category: z
    .array(z.object({ date: utcDay, category: z.string(), count: z.number().int() }))
    .describe('Memories created per day and category; empty days absent'),
  by_owner: z
    .array(z.object({ date: utcDay, owner: z.string(), count: z.number().int() }))
    .describe('Memories created per day and author (username)'),
});

export function presentMemoryActivity(activity: MemoryActivity): z.infer<typeof memoryActivityResponse> {
  return {
    since: activity.since,
    by_category: activity.byCategory.map((d) => ({ date: d.date, category: d.name, count: d.count })),
    by_owner: activity.byOwner.map((d) => ({ date: d.date, owner: d.name, count: d.count })),
  };
}
