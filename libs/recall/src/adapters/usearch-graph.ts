import type { NearestGraph } from '../domain/vector-index';

/** The HNSW graph's shape (USearch's defaults for M and the build's candidate list, measured in docs/performance.md). */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 64;
const EXPANSION_SEARCH = 200;

type UsearchIndex = {
  add(keys: bigint, vectors: Float32Array): void;
  remove(keys: bigint): number;
  search(vector: Float32Array, k: number, threads: number): { keys: BigUint64Array };
  size(): number;
  capacity(): number;
};
type UsearchModule = { Index: new (config: Record<string, unknown>) => UsearchIndex };

let loaded: UsearchModule | null | undefined;

/**
 * USearch (a native HNSW library with prebuilt binaries for Linux, macOS and Windows), loaded on
 * first use; null when this platform has no build of it, and recall's vector leg then stays in
 * Postgres.
 */
function usearch(): UsearchModule | null {
  if (loaded === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require('usearch') as UsearchModule;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

/** Whether this process can build graphs (the native module loads). */
export function graphsAvailable(): boolean {
  return usearch() !== null;
}

/**
 * A cosine HNSW graph over unit vectors in USearch, stored as half floats (the index re-scores its
 * candidates from its own Float32 copy, so the graph only has to rank them roughly). One thread:
 * a search is ~1 ms and the process serves other requests meanwhile.
 */
export class UsearchGraph implements NearestGraph {
  private readonly index: UsearchIndex;

  constructor(private readonly dimensions: number) {
    const lib = usearch();
    if (lib === null) throw new Error('usearch is not available on this platform');
    this.index = new lib.Index({
      dimensions,
      metric: 'cos',
      quantization: 'f16',
      connectivity: CONNECTIVITY,
      expansion_add: EXPANSION_ADD,
      expansion_search: EXPANSION_SEARCH,
      multi: false,
    });
  }

  add(id: number, vector: Float32Array): void {
    this.index.add(BigInt(id), vector);
  }

  remove(id: number): void {
    this.index.remove(BigInt(id));
  }

  search(vector: Float32Array, count: number): number[] {
    if (count <= 0 || this.index.size() === 0) return [];
    const { keys } = this.index.search(vector, count, 1);
    const ids: number[] = [];
    for (const key of keys) ids.push(Number(key));
    return ids;
  }

  get size(): number {
    return this.index.size();
  }

  /** Half-float vectors plus about 2M links of 4 bytes per slot of the graph's capacity. */
  get bytes(): number {
    return this.index.capacity() * (this.dimensions * 2 + CONNECTIVITY * 2 * 4 + 16);
  }
}
