
Phâ0è8ô@N
@ÐPZ2BˆØ  œºbeginh
@¸PZ	22E@ôh
@ PZ
2X ºcompleteh
@Ø6PZHºtyped instanth
@À>PZ2b0²cºasynch
@´BPZ2e0²ch
"@¨FPZ2X ºno thread timeh
PZdHºdelta tsh