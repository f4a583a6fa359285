/**
 * Proves what the API-key check tells a client whose Authorization header is there but not
 * in the form `Bearer <key>`: that the form is wrong, not that the key is missing, without
 * echoing what was sent.
 */

import { describe, expect, it } from 'vitest';
import { harnessPerTest } from '../../test/support/app-harness.js';

const start = harnessPerTest();
const KEY = 'the-right-key-0123456789';

describe('an Authorization header in another form', () => {
  it('is named as such, for a bare key and for another scheme', async () => {
    const app = await start({ apiKey: KEY });
    for (const authorization of ['sekret', KEY, `Basic ${KEY}`, `Token ${KEY}`, `Bearer${KEY}`]) {
      const answer = await app.request({ url: '/stats', headers: { authorization }, auth: false });
      expect(answer.status, authorization).toBe(401);
      expect(answer.body.code).toBe('ERR_UNAUTHORIZED');
      expect(answer.body.error, authorization).toBe(
        'the Authorization header is not of the form Bearer <key>: send the header Authorization: Bearer <key>',
      );
      expect(answer.text).not.toContain(KEY);
    }
  });

  it('still says the key is missing when there is no header or no key after Bearer', async () => {
    const app = await start({ apiKey: KEY });
    const none = await app.request({ url: '/stats', auth: false });
    expect(none.body.error).toBe('missing API key: send the header Authorization: Bearer <key>');
    const empty = await app.request({
      url: '/stats',
      headers: { authorization: 'Bearer  ' },
      auth: false,
    });
    expect(empty.body.error).toContain('missing API key');
  });
});
