module wstest-go

go 1.19
