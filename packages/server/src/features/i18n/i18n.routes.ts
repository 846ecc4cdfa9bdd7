import { ErrorBody, LANG_PATH, isSupportedLocale } from '@foyer/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../lib/errors.js';
import { READ_ERRORS } from '../../lib/http-schemas.js';

const LangParams = z.object({ locale: z.string().max(16) });

/** Spec §7: `GET static/lang/localizedStrings-{locale}.json` on the auth service. */
export const i18nRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: 'GET',
    url: LANG_PATH,
    schema: {
      tags: ['localisation'],
      summary: 'The dictionary of one locale',
      params: LangParams,
      response: {
        200: z.record(z.string(), z.string()),
        304: z.undefined().describe('Not modified (ETag matched)'),
        400: ErrorBody,
        404: ErrorBody,
        ...READ_ERRORS,
      },
    },
    handler: async (request, reply) => {
      const { locale } = request.params;
      const dictionary = isSupportedLocale(locale) ? app.dictionaries.get(locale) : undefined;
      if (dictionary === undefined) throw new AppError('notFound');
      // Short public caching: the files change only with a deploy, and the ETag makes a
      // revalidation cheap.
      reply.header('cache-control', 'public, max-age=300').header('etag', dictionary.etag);
      if (request.headers['if-none-match'] === dictionary.etag) return reply.code(304).send();
      return dictionary.messages;
    },
  });
};
