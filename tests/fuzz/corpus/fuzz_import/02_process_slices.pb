
/â,´þMy special trackÒ	2My process name
&@ÈPÁ¢îZHX´þºMy special parent A
#@úPÁ¢îZHX´þºMy special child
@¢PÁ¢îZHX´þ
@¬PÁ¢îZHX´þ
âÖÖÝóMy special track(´þ
(@æPÁ¢îZHXÖÖÝóºMy special parent A
%@„PÁ¢îZHXÖÖÝóºMy special child
@ŽPÁ¢îZHXÖÖÝó
@§PÁ¢îZHXÖÖÝó