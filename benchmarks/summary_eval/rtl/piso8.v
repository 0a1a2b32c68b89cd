module piso8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       load,
    input  wire [7:0] pdata,
    output wire       sout
);
    reg [7:0] sr;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            sr <= 8'd0;
        else if (load)
            sr <= pdata;
        else
            sr <= {sr[6:0], 1'b0};
    end

    assign sout = sr[7];
endmodule
