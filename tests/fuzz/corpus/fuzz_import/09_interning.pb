
/â,´þMy special trackÒ	2My process name
`@ÈPÁ¢îZHPX´þbDB>A very very very long slice name which we don't want to repeathÐ¸
@ÉPÁ¢îZHX´þ
@ÊPÁ¢îZHPX´þh
@ËPÁ¢îZHX´þ