import { renderBeirFiles } from '../../beir-files';
import type { Dataset } from './assemble';

/** The BEIR files of a dataset, by path relative to its folder. */
export function renderFiles(dataset: Dataset): Record<string, string> {
  return renderBeirFiles(dataset);
}
