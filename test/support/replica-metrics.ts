/** `memsvc_db_reads_total` of one API process, summed by target (`replica`, `primary`) and by primary reason. */
export async function readsServed(
  apiUrl: string,
): Promise<{ replica: number; primary: Record<string, number> }> {
  const text = await (await fetch(`${apiUrl}/metrics`)).text();
  const served = { replica: 0, primary: {} as Record<string, number> };
  for (const match of text.matchAll(/^memsvc_db_reads_total\{([^}]*)\} (\d+(?:\.\d+)?)$/gm)) {
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const count = Number(match[2]);
    if (labels.target === 'replica') served.replica += count;
    else served.primary[labels.reason] = (served.primary[labels.reason] ?? 0) + count;
  }
  return served;
}
