import { AppError } from '@svc/common';
import { describe, expect, it } from 'vitest';
import { feedQuery } from '../src/feed/event.schema.js';
import { parseInput, pathId } from '../src/http/input.js';
import { newService } from '../src/offerings/service.schema.js';
import { webhookParams } from '../src/webhooks/webhook.schema.js';

/** The 400 text parseInput throws, or the value it returns. */
function outcome(schema: Parameters<typeof parseInput>[0], input: unknown): unknown {
  try {
    return { value: parseInput(schema, input) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { status: err.status, text: err.message };
  }
}

const service = { merchant_id: 1, name: 'n', price: '1', category: 'c' };
const serviceWith = (fields: Record<string, unknown>) =>
  outcome(newService, { ...service, ...fields });
const refused = (text: string) => ({ status: 400, text });
const DECIMALS = 'price must be a non-negative number with at most 2 decimals';

/** The edges where a zod primitive's own answer differs from the field's text. */
describe('platform input fields', () => {
  it.each([
    ['', refused('price is required')],
    [null, refused('price is required')],
    ['  ', refused(DECIMALS)],
    ['12.345', refused(DECIMALS)],
    [1e21, refused(DECIMALS)],
    [100000000, refused('price must be at most 99999999.99')],
  ])('price %j answers one text', (price, answer) => {
    expect(serviceWith({ price })).toEqual(answer);
  });

  it('keeps a price as the text sent, trimmed, or a number as its text', () => {
    expect(serviceWith({ price: ' 1.50 ' })).toMatchObject({ value: { price: '1.50' } });
    expect(serviceWith({ price: 12.5 })).toMatchObject({ value: { price: '12.5' } });
  });

  it.each([
    [1e20, refused('stock must be at most 2147483647')],
    [2147483648.5, refused('stock must be a non-negative integer')],
    [-1.5, refused('stock must be a non-negative integer')],
    ['  ', refused('stock must be a non-negative integer')],
  ])('stock %j answers one text', (stock, answer) => {
    expect(serviceWith({ stock })).toEqual(answer);
  });

  it.each([
    [undefined, 0],
    [null, 0],
    ['', 0],
    [' 7 ', 7],
  ])('reads stock %j as %j', (stock, value) => {
    expect(serviceWith({ stock })).toMatchObject({ value: { stock: value } });
  });

  it.each([
    [null, 'merchant_id is required'],
    ['  ', 'merchant_id must be a positive integer'],
    [1e20, 'merchant_id must be a positive integer'],
    [true, 'merchant_id must be a positive integer'],
  ])('merchant_id %j answers %j', (merchant_id, text) => {
    expect(serviceWith({ merchant_id })).toEqual(refused(text));
  });

  it('takes a body id as a number or as digits with spaces around', () => {
    expect(serviceWith({ merchant_id: ' 12 ' })).toMatchObject({ value: { merchant_id: 12 } });
  });

  it('takes a path id as digits only, and a webhook id as nine digits at most', () => {
    expect(outcome(pathId, '007')).toEqual({ value: 7 });
    expect(outcome(pathId, ' 12')).toEqual(refused('id must be a positive integer'));
    expect(outcome(webhookParams, { id: '000000001' })).toEqual({ value: { id: 1 } });
    expect(outcome(webhookParams, { id: '1000000000' })).toEqual(
      refused('id must be a positive integer'),
    );
  });

  it('takes a feed limit as one to three digits', () => {
    expect(outcome(feedQuery, { limit: '500' })).toMatchObject({ value: { limit: 500 } });
    expect(outcome(feedQuery, { limit: '0500' })).toEqual(
      refused('limit must be an integer from 1 to 500'),
    );
  });
});
