export const MERCHANT_ADDED = '添加成功';
export const MERCHANT_ADD_FAILED = '添加失败';
export const MERCHANT_APPROVED = '商家审核通过!';
export const MERCHANT_NOT_FOUND = '商家不存在';
