export const ORDER_CREATED = '创建定单成功';
export const ORDER_CREATE_FAILED = '创建定单失败';
export const ORDER_COMPLETED = '订单已完成!';
export const ORDER_NOT_FOUND = '订单不存在';
export const BAD_ORDER_STATUS = 'status must be 0, 1 or 2';

/** The order list's cursor pages: texts under `error` of a refused walk. */
export const CURSOR_MALFORMED =
  'cursor is malformed or was altered: send the X-Next-Cursor of the page before';
export const CURSOR_OTHER_STATUS =
  'cursor was made for another status: send the status of the page before';
export const CURSOR_WITH_PAGE = 'cursor and page cannot be used together';
