import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { QueryEmbeddingCache } from './adapters/embedding/query-embedding-cache';
import { embedderProviderFactory, TransformersEmbedderProvider } from './adapters/transformers-embedder';
import { EMBEDDER_PROVIDER, type EmbedderProvider } from './ports/embedder.port';

/**
 * Internal to the embeddings lib: EMBEDDER_PROVIDER (transformers.js; for use-lite-512d its ONNX
 * build on onnxruntime, or TF.js when that is missing;
 * lazy, one model instance per id) and the recall-query QueryEmbeddingCache. Import it where embeddings are computed: the worker (embed / re-embed
 * jobs) and the API (recall and check queries). Nothing is loaded until the first embed call,
 * but a missing model folder fails the boot with the path it looked in.
 */
@Module({
  providers: [
    { provide: EMBEDDER_PROVIDER, inject: [APP_CONFIG], useFactory: embedderProviderFactory },
    {
      provide: QueryEmbeddingCache,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new QueryEmbeddingCache(config.embeddings.queryCacheSize),
    },
  ],
  exports: [EMBEDDER_PROVIDER, QueryEmbeddingCache],
})
export class EmbedderModule implements OnModuleInit {
  constructor(@Inject(EMBEDDER_PROVIDER) private readonly embedders: EmbedderProvider) {}

  onModuleInit(): void {
    // A test that overrides EMBEDDER_PROVIDER with a fake has no model files to check.
    if (this.embedders instanceof TransformersEmbedderProvider) this.embedders.assertAvailable();
  }
}
