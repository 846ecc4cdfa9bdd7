import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

/** RFC 8259 §8.1: JSON between systems is UTF-8. A declared charset may say so, or ASCII, its subset. */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** Strict UTF-8: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A body sent with a content coding (`Content-Encoding: gzip`, anything but `identity`): 415 (RFC 9110
 * §15.5.16). Checked by the body parsers (this JSON one, the SSO form's), which run only for a request
 * with a body, so a GET pays nothing for it.
 */
export function contentCodingRefusal(request: FastifyRequest): Error | undefined {
  const coding = request.headers['content-encoding'];
  if (coding === undefined || coding.trim().toLowerCase() === 'identity') return undefined;
  return new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(`content coding ${coding.slice(0, 40)}`);
}

/**
 * Decision 0017: a call's body is JSON in UTF-8, read as it was sent or refused, never repaired.
 * - A declared charset other than UTF-8 (`application/json; charset=iso-8859-1`) is 415: decoding
 *   it as UTF-8 would store `René` as `Ren\uFFFD`.
 * - Bytes that are not UTF-8 are 400 `invalidRequest`, as `\ud800` written as an escape already is:
 *   a lenient decoder would put U+FFFD into names that go on to mails and the forum.
 * - A body sent with a content coding (`Content-Encoding: gzip`) is 415 (RFC 9110 §15.5.16): the
 *   service decodes none, and a proxy that decodes by the label must not see another body than it.
 * - Text is refused with 415 as any other type is, not handed to the schema as a string; a JSON body
 *   of nothing but white space is no body, which a call without required fields accepts.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const coded = contentCodingRefusal(request);
    if (coded !== undefined) {
      done(coded, undefined);
      return;
    }
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && !UTF8_CHARSETS.has(charset)) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(`application/json; charset=${charset.slice(0, 40)}`), undefined);
      return;
    }
    let text: string;
    try {
      text = typeof body === 'string' ? body : utf8.decode(body);
    } catch {
      done(Object.assign(new Error('the body is not UTF-8'), { statusCode: 400 }), undefined);
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
}
