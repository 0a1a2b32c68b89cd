module gray2bin #(parameter N = 4) (
    input      [N-1:0] g,
    output reg [N-1:0] b
);
    integer i;

    always @* begin
        b[N-1] = g[N-1];
        for (i = N - 2; i >= 0; i = i - 1)
            b[i] = b[i+1] ^ g[i];
    end
endmodule
