
в яЫЄТ	2My process name
(в%†Крм¶"Т	®,*My thread name( яЫЄ
'@ИPБўоZHX†Крм¶єMy special parent
&@ъPБўоZHX†Крм¶єMy special child
@ќPБўоZ	HX†Крм¶
@ўPБўоZ	HX†Крм¶
@¬PБўоZ	HX†Крм¶