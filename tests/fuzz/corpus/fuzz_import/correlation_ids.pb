
$@dPbÚinterned-corrhât
@nPZHXºnumeric *h
@xPZHXh
@‚PZHXºstringªreq-7h
"@ŒPZ" RxHXºinterned°h
@–PZHXºmissing°h