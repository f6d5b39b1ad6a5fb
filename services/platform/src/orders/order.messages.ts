export const ORDER_CREATED = '创建定单成功';
export const ORDER_CREATE_FAILED = '创建定单失败';
export const ORDER_COMPLETED = '订单已完成!';
export const ORDER_NOT_FOUND = '订单不存在';
