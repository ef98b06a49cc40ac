
V@dPb="	C:\log.ccLogger ¢	hello log¢with locationhâ
"
*main
â
global
@nPZHX
ªºlogh
$@xPZ"2vRkHX
ªºlog2h
@‚PZHXªº	no threadh
!@ŒPZHX
ªºmissing bodyh