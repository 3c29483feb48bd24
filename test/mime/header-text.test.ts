import libmime from 'libmime';
import { expect, test } from 'vitest';
import { headerText } from '../../src/mime/header-text';

/** An ASCII header value is libmime's decoding of it, also where headerText skips the decoder. */
test('ASCII values read as libmime decodes them', () => {
  const values = [
    '',
    'Plain subject',
    '  spaced\tout  ',
    'Re: =?UTF-8?Q?Caf=C3=A9?=',
    '=?UTF-8?B?5bGx55SwIA==?= =?UTF-8?B?5aSq6YOO?=',
    'half =? an opener',
    'a __\u0000JOIN\u0000__ marker',
  ];
  for (const value of values) expect(headerText(value), JSON.stringify(value)).toBe(libmime.decodeWords(value));
  expect(headerText('Re: =?UTF-8?Q?Caf=C3=A9?=')).toBe('Re: Café');
});
