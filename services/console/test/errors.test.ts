// The console's HttpError is an OwrlError whose code gives the HTTP status it answers with;
// isHttpError matches the class and, when asked, the code, and refuses another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertCodedError } from '@owrl/core/testing';
import { HttpError, HttpErrorCode, isHttpError } from '../src/index.js';

void test('each HttpErrorCode answers with its own HTTP status', () => {
  const want: Record<keyof typeof HttpErrorCode, number> = {
    BadRequest: 400,
    Unauthorized: 401,
    Forbidden: 403,
    NotFound: 404,
    MethodNotAllowed: 405,
    Conflict: 409,
    BodyTooLarge: 413,
    UnsupportedMediaType: 415,
    Internal: 500,
    BadGateway: 502,
    Unavailable: 503,
    GatewayTimeout: 504,
  };
  for (const [key, status] of Object.entries(want)) assert.equal(new HttpError(HttpErrorCode[key as keyof typeof HttpErrorCode], 'x').status, status, key);
});

void test('isHttpError matches an HttpError and its code, and refuses another code or error', () => {
  const e = new HttpError(HttpErrorCode.NotFound, 'no page at /x');
  assertCodedError(e, isHttpError, HttpErrorCode.NotFound, HttpErrorCode.BadRequest);
  assert.equal(e.name, 'HttpError');
  assert.equal(isHttpError(Object.assign(new Error('x'), { status: 404 })), false);
});
