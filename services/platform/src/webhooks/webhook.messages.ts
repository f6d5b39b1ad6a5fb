import { EVENT_TYPES } from '../store/events/outbox.js';

export const WEBHOOK_ADDED = '添加成功';
export const WEBHOOK_DELETED = '删除成功';
export const WEBHOOK_RETRIED = '已重新发送';
export const WEBHOOK_ROTATED = '密钥已更换';
export const WEBHOOK_CHANGED = '修改成功';
export const WEBHOOK_ENABLED = '已启用';
export const WEBHOOK_RECOVERING = '正在重新发送';
export const BAD_RATE_LIMIT =
  'rateLimit must be an integer from 1 to 10000 (deliveries per second), or null for none';
export const BAD_SINCE = 'since must be a time in ISO 8601, such as 2026-11-22T19:15:04Z';
export const BAD_URL = 'url must be an http or https URL of at most 2048 characters';
export const BAD_TYPES = `types must be a list of one or more of ${EVENT_TYPES.join(', ')}`;
export const BAD_STATUS = 'status must be pending, delivered or failed';
export const privateUrl = (address: string) =>
  `url must not reach a loopback, private or link-local address (${address}); WEBHOOK_ALLOW_PRIVATE=true allows it`;
export const unresolvedUrl = (host: string) => `url host ${host} does not resolve`;
