import { HttpStatus, RequestMethod, type INestApplicationContext, type Type } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type { Scope } from '@app/tenancy';
import { IS_PUBLIC_KEY, REQUIRED_SCOPES_KEY } from '../auth/auth.decorators';
import { API_ROUTE_METADATA, type ApiRouteOptions } from './api-route.decorator';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch' | 'options' | 'head';

/** Where Nest mounts controllers: the global prefix and the paths it leaves unprefixed. */
export interface RoutePrefix {
  readonly prefix: string;
  readonly unprefixed?: readonly string[];
}

/** One documented operation: the @ApiRoute description plus what Nest itself knows of the route. */
export interface DocumentedRoute {
  readonly method: HttpMethod;
  /** OpenAPI form: `/api/memories/{id}`. */
  readonly path: string;
  readonly handler: string;
  readonly options: ApiRouteOptions;
  readonly successStatus: number;
  readonly isPublic: boolean;
  readonly scopes: readonly Scope[];
}

const METHODS: Partial<Record<RequestMethod, HttpMethod>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.OPTIONS]: 'options',
  [RequestMethod.HEAD]: 'head',
};

const reflector = new Reflector();
const scanner = new MetadataScanner();

const asList = (value: string | string[] | undefined): string[] =>
  value === undefined ? ['/'] : Array.isArray(value) ? value : [value];
const trimSlashes = (path: string) => path.replace(/^\/+|\/+$/g, '');

/** Nest's `:id` → OpenAPI's `{id}`. */
export const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The URL Nest registers for a controller path and a method path under the global prefix. */
export function joinRoutePath(controllerPath: string, methodPath: string, mount: RoutePrefix): string {
  const local = [controllerPath, methodPath].map(trimSlashes).filter(Boolean).join('/');
  const prefixed = !(mount.unprefixed ?? []).includes(local);
  const parts = [prefixed ? trimSlashes(mount.prefix) : '', local].filter(Boolean);
  return `/${parts.join('/')}`;
}

/**
 * Every @ApiRoute handler of the given controllers, with method, path and success status taken
 * from Nest's own route metadata, so the document cannot name a route Nest does not serve.
 */
export function documentedRoutes(controllers: readonly Type[], mount: RoutePrefix): DocumentedRoute[] {
  const routes: DocumentedRoute[] = [];
  for (const controller of controllers) {
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name] as (...args: unknown[]) => unknown;
      const options = reflector.get<ApiRouteOptions | undefined>(API_ROUTE_METADATA, handler);
      if (!options) continue;
      const where = `${controller.name}.${name}`;
      const requestMethod = reflector.get<RequestMethod | undefined>(METHOD_METADATA, handler);
      const method = requestMethod === undefined ? undefined : METHODS[requestMethod];
      if (method === undefined) {
        throw new Error(`@ApiRoute on ${where}: no single-method route decorator (@Get, @Post...)`);
      }
      const targets = [handler, controller];
      const successStatus =
        reflector.get<number | undefined>(HTTP_CODE_METADATA, handler) ??
        (method === 'post' ? HttpStatus.CREATED : HttpStatus.OK);
      const isPublic = reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets) ?? false;
      const scopes = reflector.getAllAndMerge<Scope[]>(REQUIRED_SCOPES_KEY, targets) ?? [];
      for (const base of asList(reflector.get(PATH_METADATA, controller))) {
        for (const local of asList(reflector.get(PATH_METADATA, handler))) {
          const path = toOpenApiPath(joinRoutePath(base, local, mount));
          routes.push({ method, path, handler: where, options, successStatus, isPublic, scopes });
        }
      }
    }
  }
  return routes;
}

/** The controller classes of a created Nest app (before or after init), each once. */
export function discoverControllers(app: INestApplicationContext): Type[] {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const types = discovery
    .getControllers()
    .map((wrapper) => wrapper.metatype)
    .filter((metatype): metatype is Type => typeof metatype === 'function');
  return [...new Set(types)];
}
