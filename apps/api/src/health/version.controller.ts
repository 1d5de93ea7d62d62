import { Controller, Get, Inject } from '@nestjs/common';
import { BUILD_INFO, type BuildInfo } from '@app/observability';
import { Public } from '../auth/auth.decorators';

/** `GET /version`: which build answers (version, commit, Node.js, build time); no key needed. */
@Public()
@Controller('version')
export class VersionController {
  constructor(@Inject(BUILD_INFO) private readonly info: BuildInfo) {}

  @Get()
  version(): BuildInfo {
    return this.info;
  }
}
