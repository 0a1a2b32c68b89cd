// Serial-in serial-out shift register, no reset.
module siso8 (
    input  wire clk,
    input  wire si,
    output wire so
);
    reg [7:0] stages;

    always @(posedge clk)
        stages <= {stages[6:0], si};

    assign so = stages[7];
endmodule
