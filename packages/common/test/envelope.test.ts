import { describe, expect, it } from 'vitest';
import { messageBody, messageError, msgBody } from '../src/envelope.js';

describe('envelopes', () => {
  it('builds code/message/data, leaving data out when there is none', () => {
    expect(messageBody(200, '获取成功', [{ id: 1 }])).toEqual({
      code: 200,
      message: '获取成功',
      data: [{ id: 1 }],
    });
    expect(messageBody(401, 'Token无效或已过期,请重新登录')).toEqual({
      code: 401,
      message: 'Token无效或已过期,请重新登录',
    });
    expect(messageBody(500, '添加失败', 'merchant 42 does not exist')).toEqual({
      code: 500,
      message: '添加失败',
      data: 'merchant 42 does not exist',
    });
  });

  it('builds code/message/error for the failures that carry an error text', () => {
    expect(messageError(500, '获取失败', 'storage is unavailable')).toEqual({
      code: 500,
      message: '获取失败',
      error: 'storage is unavailable',
    });
  });

  it('builds code/msg for status changes', () => {
    expect(msgBody(200, '商家审核通过!')).toEqual({ code: 200, msg: '商家审核通过!' });
    expect(msgBody(500, '服务器出错', 'storage is unavailable')).toEqual({
      code: 500,
      msg: '服务器出错',
      error: 'storage is unavailable',
    });
  });
});
