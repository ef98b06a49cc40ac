
â"
*main
â
(B è(
PhÚZXø

@dPZH`ºworkh
@–PZH`ºinnerh
@´PZH`h
@ÈPZH`h
@¬PZH`ºtickh