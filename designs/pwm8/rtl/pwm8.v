// pwm8: 8-bit PWM generator. A free-running counter steps 0..255 on every rising edge; pwm is
// 1 while the counter is below the active duty, so duty/256 of each 256-cycle period is high
// (duty 0: always low). load writes duty_in to a pending register; the active duty takes the
// pending value at the end of a period (a load in that last cycle counts), so a period never
// mixes two duties. period_end is 1 in the last cycle of each period. Synchronous active-high
// reset clears the counter and both duty registers.
module pwm8 (
    input  wire       clk,
    input  wire       rst,
    input  wire       load,
    input  wire [7:0] duty_in,
    output wire       pwm,
    output wire       period_end
);
    reg [7:0] count;
    reg [7:0] duty;
    reg [7:0] pending_duty;

    always @(posedge clk) begin
        if (rst) begin
            count        <= 8'd0;
            duty         <= 8'd0;
            pending_duty <= 8'd0;
        end else begin
            count <= count + 8'd1;
            if (load)
                pending_duty <= duty_in;
            if (period_end)
                duty <= load ? duty_in : pending_duty;
        end
    end

    assign period_end = (count == 8'hFF);
    assign pwm        = (count < duty);
endmodule
